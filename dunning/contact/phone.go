package contact

import (
	"errors"
	"fmt"

	"github.com/nyaruka/phonenumbers"
)

// Phone kinds, in Phone.Kind.
const (
	KindMobile    = "mobile"
	KindFixedLine = "fixed_line"
	// KindOther is a valid number of another kind: 0800 (toll free),
	// 4004/3003 (shared cost) and the like.
	KindOther = "other"
)

// Errors for a phone number the API must refuse, returned wrapped with
// details; test with errors.Is.
var (
	ErrPhoneInvalid      = errors.New("not a valid Brazilian phone number")
	ErrPhoneNotBrazilian = errors.New("phone number must be Brazilian (+55)")
	ErrPhoneExtension    = errors.New("phone number must not have an extension")
	ErrNotMobile         = errors.New("phone number must be a mobile number")
)

// maxPhoneInput bounds the text handed to the parser.
const maxPhoneInput = 64

// Phone is a valid Brazilian phone number.
type Phone struct {
	// E164 is the number in E.164 form, "+5511987654321": what SMS and
	// WhatsApp providers take, and the form to store and compare.
	E164 string `json:"e164"`
	// Kind is KindMobile, KindFixedLine or KindOther.
	Kind string `json:"kind"`
}

// Mobile reports whether the number can receive SMS: only mobile numbers
// can. (A WhatsApp account may also sit on a fixed line.)
func (p Phone) Mobile() bool { return p.Kind == KindMobile }

// ParsePhone reads a Brazilian phone number as people write it — "(11)
// 98765-4321", "11987654321", "011 98765-4321", "+55 11 98765-4321",
// "5511987654321" — into E.164 with +55. A number of another country, a
// number with an extension, one that does not exist in the Brazilian
// numbering plan (ANATEL's, as github.com/nyaruka/phonenumbers knows it)
// — including an old eight-digit mobile without its leading 9 — is an
// error.
func ParsePhone(s string) (Phone, error) {
	if len(s) > maxPhoneInput {
		return Phone{}, fmt.Errorf("%w: longer than %d characters", ErrPhoneInvalid, maxPhoneInput)
	}
	n, err := phonenumbers.Parse(s, "BR")
	if err != nil {
		return Phone{}, fmt.Errorf("%w (got %q)", ErrPhoneInvalid, s)
	}
	if n.GetCountryCode() != 55 {
		return Phone{}, fmt.Errorf("%w (got +%d, %s)", ErrPhoneNotBrazilian, n.GetCountryCode(), phonenumbers.GetRegionCodeForNumber(n))
	}
	if n.GetExtension() != "" {
		return Phone{}, fmt.Errorf("%w (got %q)", ErrPhoneExtension, s)
	}
	if !phonenumbers.IsValidNumberForRegion(n, "BR") {
		nsn := phonenumbers.GetNationalSignificantNumber(n)
		if len(nsn) == 10 && nsn[2] >= '6' && nsn[2] <= '9' {
			return Phone{}, fmt.Errorf("%w (got %q): a mobile number has nine digits after the area code, starting with 9", ErrPhoneInvalid, s)
		}
		return Phone{}, fmt.Errorf("%w (got %q)", ErrPhoneInvalid, s)
	}
	p := Phone{E164: phonenumbers.Format(n, phonenumbers.E164), Kind: KindOther}
	switch phonenumbers.GetNumberType(n) {
	case phonenumbers.MOBILE:
		p.Kind = KindMobile
	case phonenumbers.FIXED_LINE:
		p.Kind = KindFixedLine
	}
	return p, nil
}

// ParseMobile is ParsePhone for the SMS channel: the number must also be
// a mobile one (ErrNotMobile otherwise).
func ParseMobile(s string) (Phone, error) {
	p, err := ParsePhone(s)
	if err != nil {
		return Phone{}, err
	}
	if !p.Mobile() {
		return Phone{}, fmt.Errorf("%w (%s is a %s number)", ErrNotMobile, p.E164, kindName(p.Kind))
	}
	return p, nil
}

func kindName(kind string) string {
	if kind == KindFixedLine {
		return "fixed-line"
	}
	return "non-mobile"
}
