package restbridge

import (
	"bytes"
	"net/http"
	"net/url"
)

// baseRequest is what every in-process request starts as: the fields
// http.NewRequestWithContext would set for a relative URL and no body,
// plus the bridge's own. It is only ever copied (Request.WithContext), so
// one value serves every call concurrently.
var baseRequest = http.Request{
	Proto:      "HTTP/1.1",
	ProtoMajor: 1,
	ProtoMinor: 1,
	Body:       http.NoBody,
	RemoteAddr: "in-process",
}

// newRequest makes the in-process request for method and *u on context c,
// which owns u: one allocation for the request (the copy WithContext
// makes) instead of http.NewRequestWithContext parsing a URL it is then
// told to forget. headers sizes its header map for the entries the caller
// will add.
func newRequest(c *callContext, method string, u *url.URL, headers int) *http.Request {
	r := baseRequest.WithContext(c)
	r.Method = method
	r.URL = u
	r.Header = make(http.Header, headers)
	return r
}

// body is the JSON body of an in-process request, a reader over the bytes
// the bridge built, closed by doing nothing (io.NopCloser without the
// allocation).
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }
