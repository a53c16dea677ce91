package money

import (
	"bytes"
	"strconv"
)

// MarshalJSON writes the amount as a JSON number in reais, with at most
// two decimals ("1234.56", "10", "0.05"), the product's wire convention.
func (c Cents) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, c.Float64(), 'f', -1, 64), nil
}

// UnmarshalJSON reads a JSON number in reais with ParseDecimal's rules:
// rounded half-up to the cent from the digits as written, an error for a
// negative, too large or non-numeric value (a string such as "10.00" is
// refused: money is a number on the wire). null leaves c unchanged, as
// encoding/json does for other types.
func (c *Cents) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	v, err := ParseDecimal(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
