package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kobana/kobana-mcp/platform/decimal"
)

// Cents is an amount of Brazilian reais in centavos. Integer cents keep
// sums, fines and interest exact; only the wire uses floats.
type Cents int64

// MaxBRL is the largest amount accepted from the wire, in reais: ten
// trillion, far above any real charge yet small enough that a float64
// still tells every cent apart and that fine and interest arithmetic
// cannot overflow int64.
const MaxBRL = 10_000_000_000_000

// Max is MaxBRL in cents.
const Max Cents = MaxBRL * 100

// Errors for amounts the API must refuse. They are returned wrapped with
// the offending input; test with errors.Is.
var (
	ErrNegative  = errors.New("amount must not be negative")
	ErrNotFinite = errors.New("amount must be a finite number")
	ErrTooLarge  = errors.New("amount must be at most R$ 10.000.000.000.000,00")
	ErrSyntax    = errors.New("amount must be a decimal number such as 1234.56")
)

// FromFloat converts an amount decoded from JSON as float64 into cents,
// rounding half-up from the shortest decimal text of v (what the client
// wrote, for any amount with up to 15 significant digits).
func FromFloat(v float64) (Cents, error) {
	return FromFloatAtMost(v, Max)
}

// FromFloatAtMost is FromFloat for an API whose amounts have a lower
// ceiling than Max (a product's costs and limits, far below any charge):
// above max it is an error that wraps ErrTooLarge and names max, "amount
// must be at most R$ 1.000.000.000.000,00 (got 5e+12)". A max above Max
// is Max.
func FromFloatAtMost(v float64, max Cents) (Cents, error) {
	d, err := decimal.FromFloat(v)
	if err != nil {
		return 0, fmt.Errorf("%w (got %v)", ErrNotFinite, v)
	}
	return fromDecimal(d, strconv.FormatFloat(v, 'g', -1, 64), min(max, Max))
}

// FromNumber converts a json.Number (a decoder with UseNumber) into
// cents. It reads the digits themselves, so no float rounding is
// involved at all.
func FromNumber(n json.Number) (Cents, error) {
	return ParseDecimal(string(n))
}

// ParseDecimal reads an amount written as a JSON number ("1234.56",
// "10", "1.5e3") into cents, half-up. Brazilian notation ("1.234,56") is
// not accepted: on the wire the decimal separator is a point.
func ParseDecimal(s string) (Cents, error) {
	d, err := decimal.Parse(s)
	if errors.Is(err, decimal.ErrRange) {
		return 0, tooLarge{Max, fmt.Sprintf("%.40q", s)}
	}
	if err != nil {
		return 0, fmt.Errorf("%w (got %.40q)", ErrSyntax, s)
	}
	return fromDecimal(d, s, Max)
}

func fromDecimal(d decimal.Decimal, shown string, max Cents) (Cents, error) {
	if d.Neg && !d.IsZero() {
		return 0, fmt.Errorf("%w (got %s)", ErrNegative, shown)
	}
	v, err := d.Scaled(2, int64(max))
	if err != nil {
		return 0, tooLarge{max, shown}
	}
	return Cents(v), nil
}

// tooLarge is an amount above the ceiling it was read against: its text
// names that ceiling, and it is ErrTooLarge for errors.Is whatever the
// ceiling.
type tooLarge struct {
	max   Cents
	shown string
}

func (e tooLarge) Error() string {
	return "amount must be at most " + e.max.String() + " (got " + e.shown + ")"
}

func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// Float64 is the amount in reais as the wire carries it. It is exact in
// the sense that matters: strconv.FormatFloat(c.Float64(), 'f', -1, 64)
// is the amount with at most two decimals, and FromFloat gives c back.
// (Division of two exactly representable integers is correctly rounded,
// so the result is the float64 nearest to c/100.)
func (c Cents) Float64() float64 {
	return float64(c) / 100
}

// Decimal is the amount as plain decimal text with two decimals and a
// point, "1234.56" or "-0.05": for CSV exports and logs, where a float's
// shortest form ("10" for ten reais) would be ambiguous to a reader.
func (c Cents) Decimal() string {
	neg, units, cents := c.split()
	s := strconv.FormatUint(units, 10) + "." + twoDigits(cents)
	if neg {
		return "-" + s
	}
	return s
}

// split returns the sign, whole reais and remaining cents, safe for the
// most negative Cents too.
func (c Cents) split() (neg bool, units, cents uint64) {
	u := uint64(c)
	if c < 0 {
		neg = true
		u = -u
	}
	return neg, u / 100, u % 100
}

func twoDigits(n uint64) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}
