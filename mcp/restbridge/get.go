package restbridge

import (
	"context"
	"net/http"
	"net/url"

	"github.com/kobana/kobana-mcp/mcp"
)

// Get reads one API route in-process for a resource or a prompt, the way a
// tool call would: the caller's context (identity and all), the forwarded
// product headers of req, JSON accepted. path is relative to the API's
// root and already escaped ("/api/v1/emails/0194…"). It returns the status
// and the body; the API's own authorization runs as for any request, so a
// resource can never show what the route would refuse.
func (b *Bridge) Get(ctx context.Context, req *mcp.Request, path string, query url.Values) (int, []byte) {
	// A fresh call context: a resource read inside a tool call must not
	// carry that call's arguments.
	c := &callContext{Context: ctx, describing: Describing(ctx)}
	c.url = url.URL{Path: path, RawQuery: query.Encode()}
	if p, err := url.PathUnescape(path); err == nil {
		c.url.Path, c.url.RawPath = p, path
	}
	hreq := newRequest(c, http.MethodGet, &c.url, 1+len(b.opts.ForwardHeaders))
	hreq.Header["Accept"] = acceptJSON
	if req != nil {
		for _, h := range b.opts.ForwardHeaders {
			if vs := req.Header.Values(h); len(vs) > 0 {
				hreq.Header[http.CanonicalHeaderKey(h)] = vs
			}
		}
	}
	rec := &recorder{header: http.Header{}}
	b.api.ServeHTTP(rec, hreq)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	return status, rec.body.Bytes()
}
