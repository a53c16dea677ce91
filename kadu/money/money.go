// Package money is how Kadu writes amounts: integer cents of BRL inside
// (costs, ceilings, limits add up exactly), a float in reais on the wire,
// rounded to the cent by the server (docs/decisions.md "The rules we build
// on", API conventions). It is Kadu's own: products never import each
// other, and Kadu needs only the conversion, not Dunning's arithmetic.
package money

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Cents is an amount of Brazilian reais in centavos.
type Cents int64

// MaxBRL is the largest amount accepted from the wire, in reais: far
// above any cost, small enough that a float64 tells every cent apart.
const MaxBRL = 1_000_000_000_000

// Max is MaxBRL in cents.
const Max Cents = MaxBRL * 100

// Errors for amounts the API refuses; test with errors.Is.
var (
	ErrNegative  = errors.New("amount must not be negative")
	ErrNotFinite = errors.New("amount must be a finite number")
	ErrTooLarge  = errors.New("amount must be at most R$ 1.000.000.000.000,00")
)

// FromFloat converts an amount in reais, as JSON decoded it, into cents,
// rounding half up from the shortest decimal text of v — what the client
// wrote — so 1.005 is 101 cents although the float64 is a hair below it.
func FromFloat(v float64) (Cents, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w (got %v)", ErrNotFinite, v)
	}
	if v < 0 {
		return 0, fmt.Errorf("%w (got %v)", ErrNegative, v)
	}
	if v > MaxBRL+0.005 {
		return 0, fmt.Errorf("%w (got %v)", ErrTooLarge, v)
	}
	text := strconv.FormatFloat(v, 'f', -1, 64)
	units, frac, _ := strings.Cut(text, ".")
	whole, err := strconv.ParseInt(units, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w (got %v)", ErrTooLarge, v)
	}
	frac += "000"
	c := whole*100 + int64(frac[0]-'0')*10 + int64(frac[1]-'0')
	if frac[2] >= '5' {
		c++
	}
	if Cents(c) > Max {
		return 0, fmt.Errorf("%w (got %v)", ErrTooLarge, v)
	}
	return Cents(c), nil
}

// Float64 is the amount in reais as the wire carries it: the float64
// nearest to c/100, whose shortest text has at most two decimals.
func (c Cents) Float64() float64 { return float64(c) / 100 }

// BRL is the amount as people in Brazil read it: "R$ 1.234,56".
func (c Cents) BRL() string {
	neg := c < 0
	u := uint64(c)
	if neg {
		u = -u
	}
	units := strconv.FormatUint(u/100, 10)
	var b strings.Builder
	for i, d := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(d)
	}
	s := fmt.Sprintf("R$ %s,%02d", b.String(), u%100)
	if neg {
		return "-" + s
	}
	return s
}
