package extract

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

func TestFindPixInTextWrappedAndInvalid(t *testing.T) {
	t.Parallel()
	good := braziltest.BCBExample
	wrapped := good[:40] + "\r\n" + good[40:90] + "\n" + good[90:]
	bad := strings.Replace(good, "Fulano", "Fulana", 1)
	text := "Pix copia e cola:\n" + wrapped + "\nOu então: " + bad + " obrigado.\nNúmero 000201 qualquer."
	hits := findPix(text)
	if len(hits) != 2 {
		t.Fatalf("want 2 hits, got %+v", hits)
	}
	if hits[0].invalid != nil || hits[0].pix.Payload != good {
		t.Errorf("wrapped code: %+v", hits[0])
	}
	if got := text[hits[0].start:hits[0].end]; got != wrapped {
		t.Errorf("span %q, want the wrapped code", got)
	}
	if hits[1].invalid == nil || hits[1].invalid.Payload != bad || !strings.Contains(hits[1].invalid.Reason, "CRC") {
		t.Errorf("flipped code: %+v", hits[1])
	}
	// A broken structure after a Pix start is reported with its beginning.
	hits = findPix("x 00020126580014br.gov.bcb.pix01ZZ")
	if len(hits) != 1 || hits[0].invalid == nil || !strings.Contains(hits[0].invalid.Reason, "malformed TLV") {
		t.Errorf("malformed: %+v", hits)
	}
}
