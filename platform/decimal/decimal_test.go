package decimal

import (
	"errors"
	"math"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Decimal
		err  error
	}{
		{"0", Decimal{}, nil},
		{"-0", Decimal{Neg: true}, nil},
		{"0.000", Decimal{}, nil},
		{"10", Decimal{Digits: "1", Exp: 1}, nil},
		{"10.50", Decimal{Digits: "105", Exp: -1}, nil},
		{"1.005", Decimal{Digits: "1005", Exp: -3}, nil},
		{"-12.3", Decimal{Neg: true, Digits: "123", Exp: -1}, nil},
		{"1e3", Decimal{Digits: "1", Exp: 3}, nil},
		{"1.5E+2", Decimal{Digits: "15", Exp: 1}, nil},
		{"25e-1", Decimal{Digits: "25", Exp: -1}, nil},
		{"0.001", Decimal{Digits: "1", Exp: -3}, nil},
		{"", Decimal{}, ErrSyntax},
		{"-", Decimal{}, ErrSyntax},
		{"+1", Decimal{}, ErrSyntax},
		{"01", Decimal{}, ErrSyntax},
		{".5", Decimal{}, ErrSyntax},
		{"5.", Decimal{}, ErrSyntax},
		{"1,5", Decimal{}, ErrSyntax},
		{"1e", Decimal{}, ErrSyntax},
		{"1e+", Decimal{}, ErrSyntax},
		{" 1", Decimal{}, ErrSyntax},
		{"1 ", Decimal{}, ErrSyntax},
		{"NaN", Decimal{}, ErrSyntax},
		{"1e999999", Decimal{}, ErrRange},
		{"1e20000", Decimal{}, ErrRange},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestScaled(t *testing.T) {
	t.Parallel()
	const max = 1_000_000_000_000_000
	tests := []struct {
		in    string
		scale int
		want  int64
		err   error
	}{
		{"10.005", 2, 1001, nil},
		{"10.004", 2, 1000, nil},
		{"10.0049999", 2, 1000, nil},
		{"1.005", 2, 101, nil},
		{"0.005", 2, 1, nil},
		{"0.0049", 2, 0, nil},
		{"0.0005", 2, 0, nil},
		{"0.00000000001", 2, 0, nil},
		{"0.995", 2, 100, nil},
		{"9.995", 2, 1000, nil},
		{"1234.56", 2, 123456, nil},
		{"1e3", 2, 100000, nil},
		{"12", 0, 12, nil},
		{"2.5", 4, 25000, nil},
		{"0.03333", 4, 333, nil},
		{"0.033335", 4, 333, nil},
		{"0.03335", 4, 334, nil},
		{"10000000000000", 2, max, nil},
		{"10000000000000.004", 2, max, nil},
		{"10000000000000.005", 2, 0, ErrRange},
		{"10000000000000.01", 2, 0, ErrRange},
		{"1e30", 2, 0, ErrRange},
		{"123456789012345678901234567890", 0, 0, ErrRange},
	}
	for _, tt := range tests {
		d, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		got, err := d.Scaled(tt.scale, max)
		if !errors.Is(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("%q scaled by 10^%d = %d, %v; want %d, %v", tt.in, tt.scale, got, err, tt.want, tt.err)
		}
	}
}

func TestFromFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want int64
		err  error
	}{
		{1.005, 101, nil},
		{10.005, 1001, nil},
		{10.004, 1000, nil},
		{0.1 + 0.2, 30, nil}, // 0.30000000000000004
		{1.015, 102, nil},
		{2.675, 268, nil},
		{1e-320, 0, nil},
		{math.NaN(), 0, ErrNotFinite},
		{math.Inf(1), 0, ErrNotFinite},
		{math.Inf(-1), 0, ErrNotFinite},
	}
	for _, tt := range tests {
		d, err := FromFloat(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("FromFloat(%v) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		got, err := d.Scaled(2, math.MaxInt64)
		if err != nil || got != tt.want {
			t.Errorf("FromFloat(%v) in cents = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}
