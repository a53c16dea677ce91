package restbridge

import (
	"bytes"
	"net/http"
)

// recorder is the ResponseWriter an in-process request writes to. It is
// pooled: a tools/call allocates no writer of its own.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) reset() {
	clear(r.header)
	r.status = 0
	r.body.Reset()
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

// Flush lets handlers that flush run unchanged; everything is buffered.
func (r *recorder) Flush() {}
