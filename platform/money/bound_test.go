package money

import (
	"errors"
	"math"
	"testing"
)

// A product's lower ceiling (Kadu's R$ 1 trillion) rounds as FromFloat
// does and refuses above it with its own figure, still ErrTooLarge.
func TestFromFloatAtMost(t *testing.T) {
	const trillion = Cents(1_000_000_000_000 * 100)
	for _, tt := range []struct {
		in   float64
		want Cents
		err  error
	}{
		{0, 0, nil},
		{0.01, 1, nil},
		{1.005, 101, nil},
		{2.675, 268, nil},
		{0.1 + 0.2, 30, nil},
		{99.999, 10000, nil},
		{0.004, 0, nil},
		{1e12, trillion, nil},
		{1e12 + 0.004, trillion, nil},
		{1e12 + 0.005, 0, ErrTooLarge},
		{-0.01, 0, ErrNegative},
		{math.NaN(), 0, ErrNotFinite},
		{math.Inf(1), 0, ErrNotFinite},
		{1e13, 0, ErrTooLarge},
	} {
		got, err := FromFloatAtMost(tt.in, trillion)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("FromFloatAtMost(%v) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := FromFloatAtMost(5e12, trillion); err == nil || err.Error() != "amount must be at most R$ 1.000.000.000.000,00 (got 5e+12)" {
		t.Errorf("refusal names the ceiling: %v", err)
	}
	// Above Max, the ceiling is Max.
	if got, err := FromFloatAtMost(1e13, Max+1000); got != Max || err != nil {
		t.Errorf("ceiling above Max: %d, %v", got, err)
	}
	if _, err := FromFloatAtMost(1e13+1, Max+1000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ceiling above Max: %v", err)
	}
}

// The refusal above Max reads as it always did: ErrTooLarge's text and
// the input.
func TestTooLargeText(t *testing.T) {
	_, err := FromFloat(1e14)
	if err == nil || err.Error() != ErrTooLarge.Error()+" (got 1e+14)" {
		t.Errorf("FromFloat: %v", err)
	}
	// Text the parser cannot scale is quoted; text it reads, as written.
	_, err = ParseDecimal("1e99999")
	if err == nil || err.Error() != ErrTooLarge.Error()+` (got "1e99999")` {
		t.Errorf("ParseDecimal: %v", err)
	}
	_, err = ParseDecimal("1e400")
	if err == nil || err.Error() != ErrTooLarge.Error()+" (got 1e400)" {
		t.Errorf("ParseDecimal: %v", err)
	}
}
