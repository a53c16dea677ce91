package brazil

// The FEBRABAN check-digit algorithms. Each takes ASCII digits only; the
// callers guarantee it.

// mod10 is the modulo-10 check digit of boleto line fields and of
// arrecadação blocks whose value identifier is 6 or 7: weights 2,1,2,1…
// from the rightmost digit, a product above 9 counts as the sum of its
// digits, and the digit is what takes the sum to the next multiple of 10.
func mod10(digits string) int {
	sum, w := 0, 2
	for i := len(digits) - 1; i >= 0; i-- {
		p := int(digits[i]-'0') * w
		if p > 9 {
			p = p/10 + p%10
		}
		sum += p
		w = 3 - w
	}
	return (10 - sum%10) % 10
}

// mod11Sum is the modulo-11 weighted sum shared by the bank and the
// arrecadação variants: weights 2..9 repeating from the rightmost digit.
func mod11Sum(digits string) int {
	sum, w := 0, 2
	for i := len(digits) - 1; i >= 0; i-- {
		sum += int(digits[i]-'0') * w
		w++
		if w > 9 {
			w = 2
		}
	}
	return sum
}

// mod11Bank is the general check digit of a bank boleto barcode: 11 minus
// the remainder, with 0, 10 and 11 all becoming 1 (a bank barcode's DV is
// never 0).
func mod11Bank(digits string) int {
	dv := 11 - mod11Sum(digits)%11
	if dv == 0 || dv == 10 || dv == 11 {
		return 1
	}
	return dv
}

// mod11Collection is the arrecadação modulo-11 digit (value identifier 8
// or 9): remainders 0 and 1 give 0, remainder 10 gives 1, otherwise 11
// minus the remainder.
func mod11Collection(digits string) int {
	r := mod11Sum(digits) % 11
	if r < 2 {
		return 0
	}
	return 11 - r
}
