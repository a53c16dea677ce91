package money

import (
	"errors"
	"math"
	"testing"
)

func TestFromFloat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   float64
		want Cents
		err  error
	}{
		{0, 0, nil},
		{0.01, 1, nil},
		{0.1, 10, nil},
		{1, 100, nil},
		{1.005, 101, nil},
		{2.675, 268, nil},
		{0.1 + 0.2, 30, nil},
		{1234.56, 123456, nil},
		{99.999, 10000, nil},
		{0.004, 0, nil},
		{1e12, Max, nil},
		{-0.01, 0, ErrNegative},
		{math.NaN(), 0, ErrNotFinite},
		{math.Inf(1), 0, ErrNotFinite},
		{1e13, 0, ErrTooLarge},
	} {
		got, err := FromFloat(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("FromFloat(%v) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for c, want := range map[Cents]string{0: "R$ 0,00", 5: "R$ 0,05", 123456: "R$ 1.234,56", 100000000: "R$ 1.000.000,00", -250: "-R$ 2,50"} {
		if got := c.BRL(); got != want {
			t.Errorf("%d: %q, want %q", c, got, want)
		}
	}
	if Cents(123456).Float64() != 1234.56 {
		t.Error("Float64")
	}
}
