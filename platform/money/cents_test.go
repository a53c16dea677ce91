package money

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
)

func TestFromFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want Cents
		err  error
	}{
		{0, 0, nil},
		{math.Copysign(0, -1), 0, nil},
		{0.01, 1, nil},
		{0.1, 10, nil},
		{1, 100, nil},
		{10.005, 1001, nil},
		{10.004, 1000, nil},
		{1.005, 101, nil}, // float64 1.00499999999999989...: rounded from "1.005"
		{1.015, 102, nil},
		{2.675, 268, nil},
		{8.345, 835, nil},
		{0.1 + 0.2, 30, nil},
		{1234.56, 123456, nil},
		{99.999, 10000, nil},
		{0.004, 0, nil},
		{1e13, Max, nil},
		{9999999999999.99, Max - 1, nil},
		{-0.01, 0, ErrNegative},
		{-0.001, 0, ErrNegative}, // negative even though it rounds to zero
		{-100, 0, ErrNegative},
		{math.NaN(), 0, ErrNotFinite},
		{math.Inf(1), 0, ErrNotFinite},
		{math.Inf(-1), 0, ErrNotFinite},
		{1e13 + 0.01, 0, ErrTooLarge},
		{1e14, 0, ErrTooLarge},
		{math.MaxFloat64, 0, ErrTooLarge},
	}
	for _, tt := range tests {
		got, err := FromFloat(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("FromFloat(%v) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Cents
		err  error
	}{
		{"0", 0, nil},
		{"-0", 0, nil},
		{"-0.00", 0, nil},
		{"1234.56", 123456, nil},
		{"10.005", 1001, nil},
		{"10.004", 1000, nil},
		{"1.005", 101, nil},
		{"1.0049999999999999", 100, nil}, // exact text: below one half
		{"1e2", 10000, nil},
		{"1.5E-1", 15, nil},
		{"10000000000000", Max, nil},
		{"10000000000000.004", Max, nil},
		{"10000000000000.005", 0, ErrTooLarge},
		{"1e400", 0, ErrTooLarge},
		{"1e99999", 0, ErrTooLarge},
		{"-5", 0, ErrNegative},
		{"-0.001", 0, ErrNegative},
		{"1.234,56", 0, ErrSyntax},
		{"R$ 10", 0, ErrSyntax},
		{"", 0, ErrSyntax},
		{"NaN", 0, ErrSyntax},
		{"Infinity", 0, ErrSyntax},
		{"0x10", 0, ErrSyntax},
		{"\"10\"", 0, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseDecimal(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParseDecimal(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
		n, err2 := FromNumber(json.Number(tt.in))
		if n != got || !errors.Is(err2, tt.err) {
			t.Errorf("FromNumber(%q) = %d, %v; ParseDecimal gave %d, %v", tt.in, n, err2, got, err)
		}
	}
}

func TestErrorNamesInput(t *testing.T) {
	t.Parallel()
	_, err := FromFloat(-12.5)
	if err == nil || err.Error() != "amount must not be negative (got -12.5)" {
		t.Errorf("error = %v", err)
	}
	_, err = ParseDecimal("12,50")
	if err == nil || err.Error() != `amount must be a decimal number such as 1234.56 (got "12,50")` {
		t.Errorf("error = %v", err)
	}
}

// TestFloatRoundTrip checks that Float64 is the wire float for every
// two-decimal amount: its shortest text has at most two decimals and
// reads back to the same cents. The cents below 100 000 are all checked,
// plus a spread of large amounts up to Max.
func TestFloatRoundTrip(t *testing.T) {
	t.Parallel()
	check := func(c Cents) {
		f := c.Float64()
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if want := c.Decimal(); s != trimDecimal(want) {
			t.Fatalf("Cents(%d).Float64() prints %s, want %s", c, s, trimDecimal(want))
		}
		back, err := FromFloat(f)
		if err != nil || back != c {
			t.Fatalf("FromFloat(Cents(%d).Float64()) = %d, %v", c, back, err)
		}
	}
	for c := Cents(0); c < 100_000; c++ {
		check(c)
	}
	for c := Cents(1); c < Max; c = c*7 + 13 {
		check(c)
	}
	check(Max)
	check(Max - 1)
}

// trimDecimal turns "10.50" into "10.5" and "10.00" into "10", the
// shortest form FormatFloat prints.
func trimDecimal(s string) string {
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func TestDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Cents
		want string
	}{
		{0, "0.00"},
		{5, "0.05"},
		{100, "1.00"},
		{123456, "1234.56"},
		{-5, "-0.05"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		if got := tt.in.Decimal(); got != tt.want {
			t.Errorf("Cents(%d).Decimal() = %q, want %q", tt.in, got, tt.want)
		}
	}
}
