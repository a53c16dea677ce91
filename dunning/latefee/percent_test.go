package latefee

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestPercentFromFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want Percent
		err  error
	}{
		{0, 0, nil},
		{2, 20000, nil},
		{2.5, 25000, nil},
		{1, OnePercent, nil},
		{0.0333, 333, nil},
		{0.03335, 334, nil}, // half-up at the fourth decimal
		{0.033349, 333, nil},
		{1.00005, 10001, nil}, // the float is just below; the text is not
		{100, MaxPercent, nil},
		{100.00004, MaxPercent, nil},
		{100.01, 0, ErrPercentRange},
		{-0.5, 0, ErrPercentNegative},
		{math.NaN(), 0, ErrPercentSyntax},
		{math.Inf(1), 0, ErrPercentSyntax},
	}
	for _, tt := range tests {
		got, err := PercentFromFloat(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("PercentFromFloat(%v) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParsePercent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Percent
		err  error
	}{
		{"2", 20000, nil},
		{"0.0333", 333, nil},
		{"1e0", OnePercent, nil},
		{"2,5", 0, ErrPercentSyntax},
		{"2%", 0, ErrPercentSyntax},
		{"1e999999", 0, ErrPercentRange},
		{"-1", 0, ErrPercentNegative},
	}
	for _, tt := range tests {
		got, err := ParsePercent(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParsePercent(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestPercentFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Percent
		want string
	}{
		{0, "0%"},
		{20000, "2%"},
		{25000, "2,5%"},
		{333, "0,0333%"},
		{MaxPercent, "100%"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Percent(%d).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPercentJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		Fine     Percent `json:"fine_percent"`
		Interest Percent `json:"interest_percent"`
	}
	if err := json.Unmarshal([]byte(`{"fine_percent":2.5,"interest_percent":0.03335}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Fine != 25000 || v.Interest != 334 {
		t.Errorf("decoded %+v", v)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"fine_percent":2.5,"interest_percent":0.0334}` {
		t.Errorf("encoded %s", out)
	}
	if err := json.Unmarshal([]byte(`{"fine_percent":-2}`), &v); !errors.Is(err, ErrPercentNegative) {
		t.Errorf("negative: %v", err)
	}
}
