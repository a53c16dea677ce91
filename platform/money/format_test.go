package money

import (
	"math"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Cents
		want string
	}{
		{0, "R$ 0,00"},
		{1, "R$ 0,01"},
		{99, "R$ 0,99"},
		{100, "R$ 1,00"},
		{99999, "R$ 999,99"},
		{100000, "R$ 1.000,00"},
		{123456, "R$ 1.234,56"},
		{12345678, "R$ 123.456,78"},
		{123456789, "R$ 1.234.567,89"},
		{Max, "R$ 10.000.000.000.000,00"},
		{-100, "-R$ 1,00"},
		{-123456, "-R$ 1.234,56"},
		{math.MinInt64, "-R$ 92.233.720.368.547.758,08"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Cents(%d).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Cents
		want string
	}{
		{0, "0,00"},
		{103500, "1.035,00"},
		{-50, "-0,50"},
	}
	for _, tt := range tests {
		if got := tt.in.Number(); got != tt.want {
			t.Errorf("Cents(%d).Number() = %q, want %q", tt.in, got, tt.want)
		}
	}
}
