package brazil

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Boleto is a boleto whose every check digit verifies, decoded. A bank
// boleto ("boleto bancário", kind "bank") has a 47-digit line; a
// convênio/arrecadação slip (utilities, taxes; kind "collection") has a
// 48-digit line starting with 8. Both have a 44-digit barcode. Fields
// that do not apply to the kind are empty.
//
// It carries both forms and the formatted line whichever was given, so a
// caller can store the barcode and show the line without decoding twice.
// The JSON names are part of the Inbox extractor's published output (its
// findings embed this type): renaming one is a breaking change there.
type Boleto struct {
	Kind          string `json:"kind"`
	DigitableLine string `json:"digitable_line"`
	FormattedLine string `json:"formatted_line"`
	Barcode       string `json:"barcode"`
	// FoundAs says which form the input was: "digitable_line" or
	// "barcode" (FoundAsLine, FoundAsBarcode).
	FoundAs      string `json:"found_as"`
	BankCode     string `json:"bank_code"`
	BankName     string `json:"bank_name"`
	CurrencyCode string `json:"currency_code"`
	Segment      string `json:"segment"`
	SegmentName  string `json:"segment_name"`
	// ValueType is "effective" when the amount is in reais, "reference"
	// when an arrecadação slip carries a quantity of an index instead
	// (value identifier 7 or 9).
	ValueType   string `json:"value_type"`
	Amount      string `json:"amount"`
	AmountCents int64  `json:"amount_cents"`
	// DueFactor and DueDate are for bank boletos; 0 and "" when the
	// boleto has no due date (factor 0000).
	DueFactor int    `json:"due_factor"`
	DueDate   string `json:"due_date"`
}

// Boleto kinds: a bank boleto or an arrecadação (collection) slip. They
// use different layouts and check digits, so the kind decides which
// fields of a Boleto are set.
const (
	KindBank       = "bank"
	KindCollection = "collection"
)

// Values of Boleto.FoundAs: which form the input was. A boleto typed by a
// person is usually the line, one read by a scanner the barcode.
const (
	FoundAsLine    = "digitable_line"
	FoundAsBarcode = "barcode"
)

// DecodeBoleto validates and decodes a boleto given as a 47- or 48-digit
// line or a 44-digit barcode, in any formatting (everything but digits is
// ignored), so what a person pasted or a scanner read is accepted as is.
// ref anchors the due-date factor (see DueDateFromFactor): pass the day
// the boleto was received or issued, so the result does not depend on
// when it is decoded. The error says which check digit failed, every one
// that did, so a typo can be pointed at.
func DecodeBoleto(s string, ref time.Time) (Boleto, error) {
	d := onlyDigits(s)
	switch {
	case len(d) == 47:
		return decodeBankLine(d, ref)
	case len(d) == 48 && d[0] == '8':
		return decodeCollectionLine(d)
	case len(d) == 48:
		return Boleto{}, fmt.Errorf("a 48-digit line must start with 8 (arrecadação)")
	case len(d) == 44 && d[0] == '8':
		return decodeCollectionBarcode(d)
	case len(d) == 44:
		return decodeBankBarcode(d, ref)
	}
	return Boleto{}, fmt.Errorf("a boleto has 47 or 48 digits (line) or 44 (barcode), got %d", len(d))
}

func onlyDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func digitAt(s string, i int) int { return int(s[i] - '0') }

// decodeBankLine checks the three field DVs (mod 10) and the general DV
// (mod 11 of the rebuilt barcode) of a 47-digit line.
func decodeBankLine(l string, ref time.Time) (Boleto, error) {
	var errs []string
	fields := []struct {
		name       string
		data       string
		dv, expect int
	}{
		{"field 1", l[0:9], digitAt(l, 9), mod10(l[0:9])},
		{"field 2", l[10:20], digitAt(l, 20), mod10(l[10:20])},
		{"field 3", l[21:31], digitAt(l, 31), mod10(l[21:31])},
	}
	for _, f := range fields {
		if f.dv != f.expect {
			errs = append(errs, fmt.Sprintf("%s check digit is %d, expected %d", f.name, f.dv, f.expect))
		}
	}
	bc := l[0:4] + l[32:33] + l[33:47] + l[4:9] + l[10:20] + l[21:31]
	if g, want := digitAt(bc, 4), mod11Bank(bc[:4]+bc[5:]); g != want {
		errs = append(errs, fmt.Sprintf("general check digit is %d, expected %d", g, want))
	}
	if len(errs) > 0 {
		return Boleto{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	b := bankFromBarcode(bc, ref)
	b.FoundAs = FoundAsLine
	return b, nil
}

// decodeBankBarcode checks the general DV of a 44-digit bank barcode.
func decodeBankBarcode(bc string, ref time.Time) (Boleto, error) {
	if g, want := digitAt(bc, 4), mod11Bank(bc[:4]+bc[5:]); g != want {
		return Boleto{}, fmt.Errorf("general check digit is %d, expected %d", g, want)
	}
	b := bankFromBarcode(bc, ref)
	b.FoundAs = FoundAsBarcode
	return b, nil
}

// bankFromBarcode decodes a verified bank barcode: bank(3) currency(1)
// DV(1) factor(4) amount(10) free field(25).
func bankFromBarcode(bc string, ref time.Time) Boleto {
	free := bc[19:44]
	f1 := bc[0:4] + free[0:5]
	f2 := free[5:15]
	f3 := free[15:25]
	line := f1 + strconv.Itoa(mod10(f1)) + f2 + strconv.Itoa(mod10(f2)) + f3 + strconv.Itoa(mod10(f3)) + bc[4:5] + bc[5:19]
	factor, _ := strconv.Atoi(bc[5:9])
	cents, _ := strconv.ParseInt(bc[9:19], 10, 64)
	b := Boleto{
		Kind:          KindBank,
		DigitableLine: line,
		FormattedLine: line[0:5] + "." + line[5:10] + " " + line[10:15] + "." + line[15:21] + " " + line[21:26] + "." + line[26:32] + " " + line[32:33] + " " + line[33:47],
		Barcode:       bc,
		BankCode:      bc[0:3],
		BankName:      bankNames[bc[0:3]],
		CurrencyCode:  bc[3:4],
		ValueType:     "effective",
		Amount:        FormatCents(cents),
		AmountCents:   cents,
	}
	if due, ok := DueDateFromFactor(factor, ref); ok {
		b.DueFactor = factor
		b.DueDate = due.Format(time.DateOnly)
	}
	return b
}

// collectionDV returns the check-digit function an arrecadação slip uses,
// chosen by its value identifier (3rd digit).
func collectionDV(valueID byte) (func(string) int, bool) {
	switch valueID {
	case '6', '7':
		return mod10, true
	case '8', '9':
		return mod11Collection, true
	}
	return nil, false
}

// decodeCollectionLine checks the four block DVs and the general DV of a
// 48-digit arrecadação line.
func decodeCollectionLine(l string) (Boleto, error) {
	dv, ok := collectionDV(l[2])
	if !ok {
		return Boleto{}, fmt.Errorf("value identifier %c is not 6, 7, 8 or 9", l[2])
	}
	var errs []string
	var bc strings.Builder
	for i := 0; i < 4; i++ {
		block := l[i*12 : i*12+11]
		bc.WriteString(block)
		if got, want := digitAt(l, i*12+11), dv(block); got != want {
			errs = append(errs, fmt.Sprintf("block %d check digit is %d, expected %d", i+1, got, want))
		}
	}
	b, err := decodeCollectionBarcode(bc.String())
	if err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return Boleto{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	b.FoundAs = FoundAsLine
	return b, nil
}

// decodeCollectionBarcode checks the general DV (4th digit) of a 44-digit
// arrecadação barcode: product 8, segment, value identifier, DV, value
// (11 digits), then company and free field.
//
// The segment (2nd digit) must be one of FEBRABAN's table (1–7 and 9,
// collectionSegments): a slip of segment 0 or 8 is no arrecadação document
// whatever its check digits say (FEBRABAN, "Layout Padrão de Arrecadação/
// Recebimento com Utilização do Código de Barras", v7, segment table;
// docs/decisions.md "Boletos").
func decodeCollectionBarcode(bc string) (Boleto, error) {
	if _, ok := collectionSegments[bc[1]]; !ok {
		return Boleto{}, fmt.Errorf("segment %c is not in FEBRABAN's arrecadação table (1–7, 9)", bc[1])
	}
	dv, ok := collectionDV(bc[2])
	if !ok {
		return Boleto{}, fmt.Errorf("value identifier %c is not 6, 7, 8 or 9", bc[2])
	}
	if g, want := digitAt(bc, 3), dv(bc[:3]+bc[4:]); g != want {
		return Boleto{}, fmt.Errorf("general check digit is %d, expected %d", g, want)
	}
	var line strings.Builder
	var formatted []string
	for i := 0; i < 4; i++ {
		block := bc[i*11 : i*11+11]
		d := strconv.Itoa(dv(block))
		line.WriteString(block + d)
		formatted = append(formatted, block+"-"+d)
	}
	cents, _ := strconv.ParseInt(bc[4:15], 10, 64)
	b := Boleto{
		Kind:          KindCollection,
		DigitableLine: line.String(),
		FormattedLine: strings.Join(formatted, " "),
		Barcode:       bc,
		FoundAs:       FoundAsBarcode,
		Segment:       bc[1:2],
		SegmentName:   collectionSegments[bc[1]],
		ValueType:     "effective",
		Amount:        FormatCents(cents),
		AmountCents:   cents,
	}
	if bc[2] == '7' || bc[2] == '9' {
		b.ValueType = "reference"
	}
	return b, nil
}

// FormatCents renders cents as a decimal string with two places
// ("1234.56"), the form of Boleto.Amount and Pix.Amount: callers that
// report other amounts beside these use it so equal values print alike.
func FormatCents(c int64) string {
	neg := ""
	if c < 0 {
		neg, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", neg, c/100, c%100)
}
