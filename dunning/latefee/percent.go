package latefee

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/platform/decimal"
)

// Percent is a percentage in ten-thousandths of a percent: 2 % is
// Percent(20_000), 0.0333 % is Percent(333). Four decimals of a percent
// hold every rate creditors print (a daily 0,0333 %) exactly, while the
// arithmetic stays integer.
type Percent int64

// OnePercent is 1 % as a Percent.
const OnePercent Percent = 10_000

// MaxPercent is the largest percentage accepted from the wire: 100 %.
const MaxPercent = 100 * OnePercent

// Errors for a percentage the API must refuse, returned wrapped with the
// input; test with errors.Is.
var (
	ErrPercentNegative = errors.New("percentage must not be negative")
	ErrPercentRange    = errors.New("percentage must be at most 100")
	ErrPercentSyntax   = errors.New("percentage must be a number such as 2 or 0.0333")
)

// PercentFromFloat reads a wire percentage (2 for 2 %), rounded half-up
// to four decimals from its shortest decimal text, the same rule money
// uses for amounts.
func PercentFromFloat(v float64) (Percent, error) {
	d, err := decimal.FromFloat(v)
	if err != nil {
		return 0, fmt.Errorf("%w (got %v)", ErrPercentSyntax, v)
	}
	return percentFrom(d, strconv.FormatFloat(v, 'g', -1, 64))
}

// ParsePercent reads a percentage written as a JSON number ("2.5").
func ParsePercent(s string) (Percent, error) {
	d, err := decimal.Parse(s)
	if errors.Is(err, decimal.ErrRange) {
		return 0, fmt.Errorf("%w (got %.40q)", ErrPercentRange, s)
	}
	if err != nil {
		return 0, fmt.Errorf("%w (got %.40q)", ErrPercentSyntax, s)
	}
	return percentFrom(d, s)
}

func percentFrom(d decimal.Decimal, shown string) (Percent, error) {
	if d.Neg && !d.IsZero() {
		return 0, fmt.Errorf("%w (got %s)", ErrPercentNegative, shown)
	}
	v, err := d.Scaled(4, int64(MaxPercent))
	if err != nil {
		return 0, fmt.Errorf("%w (got %s)", ErrPercentRange, shown)
	}
	return Percent(v), nil
}

// Float64 is the percentage as the wire carries it (2.5 for 2.5 %).
func (p Percent) Float64() float64 { return float64(p) / float64(OnePercent) }

// String is the Brazilian form, "2,5%" or "0,0333%", for messages and
// errors.
func (p Percent) String() string {
	s := strconv.FormatFloat(p.Float64(), 'f', -1, 64)
	return strings.Replace(s, ".", ",", 1) + "%"
}

// MarshalJSON writes the wire number, 2.5 for 2.5 %.
func (p Percent) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, p.Float64(), 'f', -1, 64), nil
}

// UnmarshalJSON reads a wire number with ParsePercent's rules; null
// leaves p unchanged.
func (p *Percent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	v, err := ParsePercent(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
