package kadu

import (
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/blob"
)

// TestFilesNamesRefused: an upload slot's file name is refused (422
// naming filename, no row created) when it hides what it is — the
// issue's "\u202ecsv.exe", NUL, CR/LF — or is a path — "..", "../x",
// "a/b". A name with accents and header-special characters is kept and
// downloads under it, in an RFC 6266 filename* that decodes back to it.
//
// Not parallel: fileBuckets' S3 bucket sets environment variables.
func TestFilesNamesRefused(t *testing.T) {
	t.Parallel()
	fileBuckets(t, func(t *testing.T, e *kaduEnv, b *blob.Bucket) {
		for _, bad := range []string{"\u202ecsv.exe", "..", "../x", "a/b", `a\b.csv`, "a\x00.csv", "a\r\nb.csv", "nota\u2067.csv", "..."} {
			body := csvSlot(receivablesCSV)
			body["filename"] = bad
			resp := e.wantError(e.member, "POST", "/api/v1/files", body, 422, "validation_failed")
			if !strings.Contains(resp, `"field":"filename"`) {
				t.Errorf("%q: %s", bad, resp)
			}
		}
		if n := e.count(`SELECT COUNT(*) FROM kadu_files`); n != 0 {
			t.Fatalf("%d files created from refused names", n)
		}
		const name = "recebíveis março; v=2, \"final\".csv"
		body := csvSlot(receivablesCSV)
		body["filename"] = name
		slot := e.createSlot(e.member, body)
		upload(t, slot, receivablesCSV)
		path := "/api/v1/files/" + slot.ID
		e.do(e.member, "POST", path+"/confirm", nil, 200)
		dl := data[struct {
			URL string `json:"url"`
		}](t, 200, e.do(e.viewer, "POST", path+"/download-url", nil, 200), 200)
		resp, err := http.Get(dl.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cd := resp.Header.Get("Content-Disposition")
		typ, params, err := mime.ParseMediaType(cd)
		if resp.StatusCode != 200 || err != nil || typ != "attachment" || params["filename"] != name {
			t.Fatalf("download %d: Content-Disposition %q parses to %q %v (%v)", resp.StatusCode, cd, typ, params, err)
		}
	})
}
