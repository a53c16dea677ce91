package money

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestJSON(t *testing.T) {
	t.Parallel()
	type charge struct {
		Amount Cents `json:"amount"`
	}
	tests := []struct {
		in   string
		want Cents
		out  string
		err  error
	}{
		{`{"amount":1234.56}`, 123456, `{"amount":1234.56}`, nil},
		{`{"amount":10}`, 1000, `{"amount":10}`, nil},
		{`{"amount":10.005}`, 1001, `{"amount":10.01}`, nil},
		{`{"amount":1.005}`, 101, `{"amount":1.01}`, nil},
		{`{"amount":0.5}`, 50, `{"amount":0.5}`, nil},
		{`{"amount":-1}`, 0, ``, ErrNegative},
		{`{"amount":"10.00"}`, 0, ``, ErrSyntax},
		{`{"amount":1e14}`, 0, ``, ErrTooLarge},
	}
	for _, tt := range tests {
		var c charge
		err := json.Unmarshal([]byte(tt.in), &c)
		if !errors.Is(err, tt.err) {
			t.Errorf("Unmarshal(%s) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if c.Amount != tt.want {
			t.Errorf("Unmarshal(%s) = %d, want %d", tt.in, c.Amount, tt.want)
		}
		out, err := json.Marshal(c)
		if err != nil || string(out) != tt.out {
			t.Errorf("Marshal(%d) = %s, %v; want %s", c.Amount, out, err, tt.out)
		}
	}
}

func TestJSONNullLeavesValue(t *testing.T) {
	t.Parallel()
	c := Cents(500)
	if err := json.Unmarshal([]byte(`null`), &c); err != nil || c != 500 {
		t.Errorf("Unmarshal(null) = %d, %v; want 500 unchanged", c, err)
	}
}
