package httpx

import "net/http"

// StatusWriter remembers the status a handler answered with, for
// middleware that acts on it afterwards (counting 401s, metrics, logs).
type StatusWriter struct {
	http.ResponseWriter
	// Status is the status written, 0 until the handler writes.
	Status int
}

// WriteHeader records the first status and passes it on.
func (w *StatusWriter) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write records an implicit 200.
func (w *StatusWriter) Write(p []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers working behind the wrapper.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
