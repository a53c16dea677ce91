package extract

import (
	"strings"

	"github.com/kobana/kobana-mcp/platform/brazil"
)

// Pix is a Pix "copia e cola" code found in the e-mail, verified
// (brazil.Pix), and the parts it was found in. Sources comes last, after
// the decoded fields, as it always has in the extractor's JSON.
type Pix struct {
	brazil.Pix
	Sources []string `json:"sources"`
}

// InvalidPix is something that starts like a Pix code but fails: broken
// TLV, wrong CRC (a changed character), missing mandatory field. Payload
// is the code as found (its beginning when the structure is broken).
type InvalidPix struct {
	Payload string   `json:"payload"`
	Reason  string   `json:"reason"`
	Sources []string `json:"sources"`
}

// pixHit is a Pix code (or invalid one) found in a text.
type pixHit struct {
	span
	pix     brazil.Pix
	invalid *InvalidPix
}

// pixIgnored are characters dropped before looking for Pix codes: line
// breaks (long codes wrap in bodies and PDFs) and invisible characters
// some e-mail clients insert.
func pixIgnored(r rune) bool {
	switch r {
	case '\r', '\n', '\u200b', '\u200c', '\u200d', '\u00ad', '\ufeff':
		return true
	}
	return false
}

// findPix returns the Pix codes in text. A code is recognised by its
// start ("000201") and read field by field up to its CRC
// (brazil.ReadPix); failures are reported only when the Pix GUI appears
// right after the start, so stray digits are not mistaken for broken
// codes.
func findPix(text string) []pixHit {
	if !strings.Contains(text, "0002") {
		return nil
	}
	var runes []rune
	var offs []int // byte offset in text of each rune kept
	for i, r := range text {
		if !pixIgnored(r) {
			runes = append(runes, r)
			offs = append(offs, i)
		}
	}
	offs = append(offs, len(text))
	var hits []pixHit
	for i := 0; i+6 <= len(runes); i++ {
		if string(runes[i:i+6]) != brazil.PixStart {
			continue
		}
		end, p, err := brazil.ReadPix(runes, i)
		if end == 0 {
			if looksLikePix(runes, i) {
				excerpt := strings.TrimSpace(string(runes[i:min(len(runes), i+120)]))
				hits = append(hits, pixHit{span: span{offs[i], offs[i]}, invalid: &InvalidPix{Payload: excerpt, Reason: err.Error()}})
				i += 5
			}
			continue
		}
		sp := span{offs[i], offs[end-1] + len(string(runes[end-1]))}
		if err != nil {
			hits = append(hits, pixHit{span: sp, invalid: &InvalidPix{Payload: string(runes[i:end]), Reason: err.Error()}})
		} else {
			hits = append(hits, pixHit{span: sp, pix: p})
		}
		i = end - 1
	}
	return hits
}

// looksLikePix reports whether the Pix GUI follows a "000201" closely.
func looksLikePix(r []rune, i int) bool {
	return strings.Contains(strings.ToLower(string(r[i:min(len(r), i+80)])), brazil.PixGUI)
}
