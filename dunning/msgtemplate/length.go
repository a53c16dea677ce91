package msgtemplate

import (
	"fmt"
	"unicode/utf8"
)

// Channel is how a step reaches the debtor.
type Channel string

// Channels.
const (
	Email    Channel = "email"
	SMS      Channel = "sms"
	WhatsApp Channel = "whatsapp"
)

// Channels lists every channel, for API enums.
var Channels = []Channel{Email, SMS, WhatsApp}

// ParseChannel reads a channel from the wire.
func ParseChannel(s string) (Channel, error) {
	for _, c := range Channels {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("channel must be one of email, sms, whatsapp (got %.20q)", s)
}

// Length limits per channel, on a rendered message.
//
// SMS follows 3GPP TS 23.038 (GSM 03.38) and TS 23.040: a message in the
// GSM 7-bit alphabet fits 160 characters in one segment and 153 per
// segment when split (the rest carries the concatenation header); the
// characters ^ { } \ [ ] ~ | € count twice (escape + character). Any
// other character — including á, ã, â, ê, í, ó, õ, ô, ú and lower-case ç,
// common in Portuguese — makes the whole message UCS-2: 70 UTF-16 units
// in one segment, 67 per segment when split. Each segment is billed, so
// Dunning refuses messages longer than MaxSMSSegments.
//
// A WhatsApp text message body holds at most 4096 characters (WhatsApp's
// own limit for text messages). E-mail bodies have no protocol limit;
// MaxEmailChars keeps a message readable and its job small.
const (
	MaxSMSSegments   = 6
	MaxWhatsAppChars = 4096
	MaxEmailChars    = 100_000
)

// SMS segment sizes (3GPP TS 23.040 with the 6-octet concatenation
// header).
const (
	smsGSMSingle  = 160
	smsGSMPart    = 153
	smsUCS2Single = 70
	smsUCS2Part   = 67
)

// SMS encodings, in Length.Encoding.
const (
	EncodingGSM7 = "GSM-7"
	EncodingUCS2 = "UCS-2"
)

// Length is how a rendered message fits its channel.
type Length struct {
	Channel Channel `json:"channel"`
	// Characters is the message's length in Unicode characters.
	Characters int `json:"characters"`
	// Encoding, Units and Segments are for SMS: the encoding the message
	// needs, its size in that encoding (7-bit septets or UTF-16 units)
	// and how many segments it is sent as.
	Encoding string `json:"encoding,omitempty"`
	Units    int    `json:"units,omitempty"`
	Segments int    `json:"segments,omitempty"`
	// Fits reports whether the message is within the channel's limit.
	Fits bool `json:"fits"`
	// Limit says what the limit is, for an error message.
	Limit string `json:"limit"`
}

// Measure reports how text fits channel. An unknown channel never fits.
func Measure(ch Channel, text string) Length {
	l := Length{Channel: ch, Characters: utf8.RuneCountInString(text)}
	switch ch {
	case SMS:
		l.Encoding, l.Units, l.Segments = smsSegments(text)
		l.Fits = l.Segments <= MaxSMSSegments
		l.Limit = fmt.Sprintf("at most %d SMS segments", MaxSMSSegments)
	case WhatsApp:
		l.Fits = l.Characters <= MaxWhatsAppChars
		l.Limit = fmt.Sprintf("at most %d characters", MaxWhatsAppChars)
	case Email:
		l.Fits = l.Characters <= MaxEmailChars
		l.Limit = fmt.Sprintf("at most %d characters", MaxEmailChars)
	default:
		l.Limit = "unknown channel"
	}
	return l
}

// gsmBasic is the GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1),
// each character one septet. The escape code 0x1B is left out: it is not
// a character of its own.
const gsmBasic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
	"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"

// gsmExtension is the default alphabet's extension table, each character
// an escape plus itself: two septets.
const gsmExtension = "\f^{}\\[~]|€"

var gsmCost = func() map[rune]int {
	m := map[rune]int{}
	for _, r := range gsmBasic {
		m[r] = 1
	}
	for _, r := range gsmExtension {
		m[r] = 2
	}
	return m
}()

// smsSegments packs text into segments the way a sender does: a
// character never splits across two segments (neither an escaped GSM
// character nor a UTF-16 surrogate pair).
func smsSegments(text string) (encoding string, units, segments int) {
	costs := make([]int, 0, len(text))
	encoding = EncodingGSM7
	for _, r := range text {
		c, ok := gsmCost[r]
		if !ok {
			encoding = EncodingUCS2
			break
		}
		costs = append(costs, c)
	}
	single, part := smsGSMSingle, smsGSMPart
	if encoding == EncodingUCS2 {
		single, part = smsUCS2Single, smsUCS2Part
		costs = costs[:0]
		for _, r := range text {
			c := 1
			if r > 0xFFFF {
				c = 2
			}
			costs = append(costs, c)
		}
	}
	for _, c := range costs {
		units += c
	}
	if units == 0 {
		return encoding, 0, 0
	}
	if units <= single {
		return encoding, units, 1
	}
	segments, used := 1, 0
	for _, c := range costs {
		if used+c > part {
			segments++
			used = 0
		}
		used += c
	}
	return encoding, units, segments
}
