package money

import "strconv"

// String formats the amount the Brazilian way, "R$ 1.234,56": a point
// between thousands, a comma before the cents, and "-R$ 1,00" for a
// negative amount (the sign before the symbol, as Brazilian bank
// statements print debits). The space is a plain U+0020, not the no-break
// space some locales use, so the text stays in the GSM-7 alphabet of an
// SMS.
func (c Cents) String() string {
	neg, units, cents := c.split()
	s := "R$ " + groupBR(units, cents)
	if neg {
		return "-" + s
	}
	return s
}

// Number formats the amount without the currency symbol, "1.234,56", for
// tables whose column header already says R$. A negative amount starts
// with "-".
func (c Cents) Number() string {
	neg, units, cents := c.split()
	if neg {
		return "-" + groupBR(units, cents)
	}
	return groupBR(units, cents)
}

func groupBR(units, cents uint64) string {
	digits := strconv.FormatUint(units, 10)
	out := make([]byte, 0, len(digits)+len(digits)/3+3)
	for i := 0; i < len(digits); i++ {
		if i > 0 && (len(digits)-i)%3 == 0 {
			out = append(out, '.')
		}
		out = append(out, digits[i])
	}
	out = append(out, ',')
	out = append(out, twoDigits(cents)...)
	return string(out)
}
