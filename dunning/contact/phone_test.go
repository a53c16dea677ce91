package contact

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePhone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		e164 string
		kind string
		err  error
	}{
		{"(11) 98765-4321", "+5511987654321", KindMobile, nil},
		{"11987654321", "+5511987654321", KindMobile, nil},
		{"11 98765 4321", "+5511987654321", KindMobile, nil},
		{"+55 11 98765-4321", "+5511987654321", KindMobile, nil},
		{"+5511987654321", "+5511987654321", KindMobile, nil},
		{"5511987654321", "+5511987654321", KindMobile, nil},      // country code without +
		{"011 98765-4321", "+5511987654321", KindMobile, nil},     // trunk prefix
		{"0 21 11 98765-4321", "+5511987654321", KindMobile, nil}, // carrier selection code
		{"tel:+55-11-98765-4321", "+5511987654321", KindMobile, nil},
		{"(61) 99999-9999", "+5561999999999", KindMobile, nil},
		{"(11) 3456-7890", "+551134567890", KindFixedLine, nil},
		{"(21) 2123-4567", "+552121234567", KindFixedLine, nil},
		{"55 11 3456-7890", "+551134567890", KindFixedLine, nil},
		{"0800 123 4567", "+558001234567", KindOther, nil},
		{"98765-4321", "", "", ErrPhoneInvalid},     // no area code
		{"(11) 8765-4321", "", "", ErrPhoneInvalid}, // eight-digit mobile, before the 9
		{"+55 (11) 98765-43210", "", "", ErrPhoneInvalid},
		{"(11)98765-4321 ramal 2", "", "", ErrPhoneInvalid},
		{"abc", "", "", ErrPhoneInvalid},
		{"", "", "", ErrPhoneInvalid},
		{strings.Repeat("1", 65), "", "", ErrPhoneInvalid},
		{"+1 415 555 2671", "", "", ErrPhoneNotBrazilian},
		{"+351 912 345 678", "", "", ErrPhoneNotBrazilian},
		{"+55 11 98765 4321 ext. 3", "", "", ErrPhoneExtension},
	}
	for _, tt := range tests {
		got, err := ParsePhone(tt.in)
		if !errors.Is(err, tt.err) || got.E164 != tt.e164 || got.Kind != tt.kind {
			t.Errorf("ParsePhone(%q) = %+v, %v; want %s %s, %v", tt.in, got, err, tt.e164, tt.kind, tt.err)
		}
	}
}

func TestPhoneMessages(t *testing.T) {
	t.Parallel()
	_, err := ParsePhone("(11) 8765-4321")
	if err == nil || err.Error() != `not a valid Brazilian phone number (got "(11) 8765-4321"): a mobile number has nine digits after the area code, starting with 9` {
		t.Errorf("eight-digit mobile: %v", err)
	}
	_, err = ParsePhone("+1 415 555 2671")
	if err == nil || err.Error() != "phone number must be Brazilian (+55) (got +1, US)" {
		t.Errorf("foreign: %v", err)
	}
}

func TestParseMobile(t *testing.T) {
	t.Parallel()
	if p, err := ParseMobile("(11) 98765-4321"); err != nil || p.E164 != "+5511987654321" || !p.Mobile() {
		t.Errorf("mobile: %+v, %v", p, err)
	}
	_, err := ParseMobile("(11) 3456-7890")
	if !errors.Is(err, ErrNotMobile) || err.Error() != "phone number must be a mobile number (+551134567890 is a fixed-line number)" {
		t.Errorf("fixed line: %v", err)
	}
	if _, err := ParseMobile("0800 123 4567"); !errors.Is(err, ErrNotMobile) {
		t.Errorf("toll free: %v", err)
	}
	if _, err := ParseMobile("abc"); !errors.Is(err, ErrPhoneInvalid) {
		t.Errorf("garbage: %v", err)
	}
}
