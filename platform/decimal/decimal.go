// Package decimal reads decimal numbers exactly, as text, and scales them
// to integers with half-up rounding. It is the one place a wire number
// becomes a fixed-point integer, so amounts (platform/money's cents) and
// percentages (a product's rates) round the same way.
//
// Working on the text rather than on a float64 is what makes 1.005 round
// to 1.01: the float64 nearest to 1.005 is 1.00499999999999989..., and
// rounding it as a float gives 1.00. The shortest text that reads back as
// that float64 (strconv.FormatFloat with precision -1) is "1.005", the
// number the client wrote.
package decimal

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrSyntax means the text is not a JSON number.
var ErrSyntax = errors.New("not a decimal number")

// ErrRange means the scaled value does not fit the requested bound.
var ErrRange = errors.New("number out of range")

// ErrNotFinite means a float64 was NaN or infinite.
var ErrNotFinite = errors.New("number is not finite")

// Decimal is a parsed decimal number: (-1)^Neg × Digits × 10^Exp, with
// Digits free of leading zeros ("" for zero).
type Decimal struct {
	Neg    bool
	Digits string
	Exp    int
}

// maxExp bounds the exponent we accept; anything beyond is either zero
// after scaling or far beyond any bound a caller uses.
const maxExp = 10000

// Parse reads s with the JSON number grammar (RFC 8259 §6): an optional
// minus, an integer part without leading zeros, an optional fraction and
// an optional exponent. It is what a JSON decoder hands over as
// json.Number, and what strconv.FormatFloat(v, 'f', -1, 64) produces.
func Parse(s string) (Decimal, error) {
	var d Decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.Neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return Decimal{}, ErrSyntax
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return Decimal{}, ErrSyntax
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if es == i {
			return Decimal{}, ErrSyntax
		}
		digits := strings.TrimLeft(s[es:i], "0")
		if len(digits) > 5 {
			return Decimal{}, ErrRange
		}
		if digits != "" {
			exp, _ = strconv.Atoi(digits)
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return Decimal{}, ErrSyntax
	}
	d.Digits = strings.TrimLeft(intPart+frac, "0")
	d.Exp = exp - len(frac)
	if d.Digits == "" {
		d.Exp = 0
	} else {
		// Trailing zeros carry no value; dropping them keeps Scaled's
		// overflow check about significant digits only.
		trimmed := strings.TrimRight(d.Digits, "0")
		d.Exp += len(d.Digits) - len(trimmed)
		d.Digits = trimmed
	}
	if d.Exp > maxExp || d.Exp < -maxExp {
		return Decimal{}, ErrRange
	}
	return d, nil
}

// FromFloat is the decimal a float64 stands for: the shortest text that
// reads back as v, so a value decoded from JSON text gives back that text
// (for the up to 15 significant digits any money amount has).
func FromFloat(v float64) (Decimal, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Decimal{}, ErrNotFinite
	}
	return Parse(strconv.FormatFloat(v, 'f', -1, 64))
}

// IsZero reports whether the number is zero (including "-0").
func (d Decimal) IsZero() bool { return d.Digits == "" }

// Scaled returns |d| × 10^scale rounded half-up to an integer (a dropped
// part of exactly one half rounds up, away from zero), or ErrRange when
// the result exceeds max. The sign is left to the caller (d.Neg), which is
// what lets it reject a negative amount that would round to zero.
func (d Decimal) Scaled(scale int, max int64) (int64, error) {
	if d.IsZero() {
		return 0, nil
	}
	k := d.Exp + scale
	digits := d.Digits
	roundUp := false
	if k < 0 {
		drop := -k
		if drop > len(digits) {
			// Every digit is below the first dropped position: the
			// value is less than 0.1 of a unit and rounds to zero.
			return 0, nil
		}
		roundUp = digits[len(digits)-drop] >= '5'
		digits = digits[:len(digits)-drop]
		k = 0
	}
	if len(digits)+k > 18 {
		return 0, ErrRange
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		v = v*10 + int64(digits[i]-'0')
	}
	for ; k > 0; k-- {
		v *= 10
	}
	if roundUp {
		v++
	}
	if v > max {
		return 0, ErrRange
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
