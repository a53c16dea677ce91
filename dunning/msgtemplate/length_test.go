package msgtemplate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGSMAlphabet(t *testing.T) {
	t.Parallel()
	if n := utf8.RuneCountInString(gsmBasic); n != 127 {
		t.Errorf("basic alphabet has %d characters, want 127 (128 codes less the escape)", n)
	}
	if n := utf8.RuneCountInString(gsmExtension); n != 10 {
		t.Errorf("extension table has %d characters, want 10", n)
	}
}

func TestMeasureSMS(t *testing.T) {
	t.Parallel()
	a := func(n int) string { return strings.Repeat("a", n) }
	ã := func(n int) string { return strings.Repeat("ã", n) }
	tests := []struct {
		name     string
		text     string
		encoding string
		units    int
		segments int
	}{
		{"empty", "", EncodingGSM7, 0, 0},
		{"one character", "a", EncodingGSM7, 1, 1},
		{"160 GSM-7", a(160), EncodingGSM7, 160, 1},
		{"161 GSM-7", a(161), EncodingGSM7, 161, 2},
		{"306 GSM-7", a(306), EncodingGSM7, 306, 2},
		{"307 GSM-7", a(307), EncodingGSM7, 307, 3},
		{"€ counts twice", a(159) + "€", EncodingGSM7, 161, 2},
		{"€ at the edge is not split", a(152) + "€" + a(152), EncodingGSM7, 306, 3},
		{"GSM accents stay GSM-7", "é à è ù ì ò Ç Ñ ü ö", EncodingGSM7, 19, 1},
		{"Portuguese ã is UCS-2", "não", EncodingUCS2, 3, 1},
		{"lower-case ç is UCS-2", "cobrança", EncodingUCS2, 8, 1},
		{"70 UCS-2", ã(70), EncodingUCS2, 70, 1},
		{"71 UCS-2", ã(71), EncodingUCS2, 71, 2},
		{"134 UCS-2", ã(134), EncodingUCS2, 134, 2},
		{"135 UCS-2", ã(135), EncodingUCS2, 135, 3},
		{"an emoji is two units", ã(69) + "😀", EncodingUCS2, 71, 2},
		{"a surrogate pair is not split", ã(66) + "😀" + ã(66), EncodingUCS2, 134, 3},
		{"a formatted amount is GSM-7", "Valor: R$ 1.234,56 vence 10/03/2026", EncodingGSM7, 35, 1},
	}
	for _, tt := range tests {
		l := Measure(SMS, tt.text)
		if l.Encoding != tt.encoding || l.Units != tt.units || l.Segments != tt.segments {
			t.Errorf("%s: got %s %d units %d segments; want %s %d %d", tt.name, l.Encoding, l.Units, l.Segments, tt.encoding, tt.units, tt.segments)
		}
	}
	if l := Measure(SMS, a(6*153)); !l.Fits || l.Segments != 6 {
		t.Errorf("six segments should fit: %+v", l)
	}
	if l := Measure(SMS, a(6*153+1)); l.Fits || l.Segments != 7 || l.Limit != "at most 6 SMS segments" {
		t.Errorf("seven segments should not fit: %+v", l)
	}
}

func TestMeasureOtherChannels(t *testing.T) {
	t.Parallel()
	if l := Measure(WhatsApp, strings.Repeat("ã", 4096)); !l.Fits || l.Characters != 4096 || l.Segments != 0 {
		t.Errorf("4096 characters on WhatsApp: %+v", l)
	}
	if l := Measure(WhatsApp, strings.Repeat("a", 4097)); l.Fits {
		t.Errorf("4097 characters on WhatsApp fit: %+v", l)
	}
	if l := Measure(Email, strings.Repeat("a", MaxEmailChars)); !l.Fits {
		t.Errorf("e-mail at the limit: %+v", l)
	}
	if l := Measure(Email, strings.Repeat("a", MaxEmailChars+1)); l.Fits {
		t.Errorf("e-mail over the limit: %+v", l)
	}
	if l := Measure("fax", "a"); l.Fits {
		t.Error("an unknown channel fits")
	}
}

func TestParseChannel(t *testing.T) {
	t.Parallel()
	for _, c := range Channels {
		if got, err := ParseChannel(string(c)); err != nil || got != c {
			t.Errorf("ParseChannel(%s) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseChannel("SMS"); err == nil || err.Error() != `channel must be one of email, sms, whatsapp (got "SMS")` {
		t.Errorf("ParseChannel(SMS) = %v", err)
	}
}
