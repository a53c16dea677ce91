package files

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/kobana/kobana-mcp/rest"
)

// The raw downloads of documents and exports (GET …/download): the
// headers of an attachment and the refusals, shared by both.

// fileNotReady is the refusal of a download of a file that is not ready.
func fileNotReady(what string, status string, failure *string) *rest.Error {
	if status == FileFailed {
		msg := "the " + what + " failed and has no file"
		if failure != nil {
			msg += ": " + *failure
		}
		return rest.Unprocessable(msg)
	}
	return rest.Conflict("the " + what + " is still generating: read it again until status is ready")
}

// attachment sets the headers of a file download: its type, its length
// when known, and an attachment disposition with its name.
func attachment(w http.ResponseWriter, contentType, filename string, size int64) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	if size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
}

// writeRawError answers a raw handler's error in the API's shape; what is
// not an *rest.Error is logged and answered 500.
func (s *Service) writeRawError(api *rest.API, w http.ResponseWriter, r *http.Request, err error) {
	var re *rest.Error
	if errors.As(err, &re) {
		api.WriteError(w, re)
		return
	}
	s.Log.ErrorContext(r.Context(), "dunning: download failed", "path", r.URL.Path, "error", err)
	api.WriteError(w, &rest.Error{Status: http.StatusInternalServerError, Code: rest.CodeInternal, Message: "internal error"})
}
