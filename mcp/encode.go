package mcp

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// result is a method's answer before the era decorates it: the members of
// the result object, in wire order, and how to decorate them.
type result struct {
	members       []byte
	cacheable     bool // ttlMs/cacheScope in the 2026 era
	inputRequired bool
	meta          map[string]any
	// scratch, when set, is the pooled buffer members was written in; it
	// goes back to the pool once the answer is written.
	scratch *[]byte
	// kept says members is the whole answer after the id, decorated once
	// and kept (`,"result":{…}}`, made by answerTail): writeResult sends it
	// as it is, without copying it (answers that never change for their
	// key: server/discover, a caller class's tools/list). The other fields
	// are then unused. A flag, not another slice: a call holds its result,
	// and 24 more bytes moved the call into a larger size class.
	kept bool
}

// answerTail decorates res as this call's era would and returns the
// answer's bytes after the id, to be kept (result.kept) and served again
// to every call of the same era (docs/performance.md, "Kadu and Dunning as
// fast as the Inbox (issue 28)", second round).
func (c *call) answerTail(res *result) []byte {
	b := append([]byte(nil), `,"result":`...)
	b = c.decorate(b, res)
	return append(b, '}')
}

// members accumulates "key":value pairs.
type members []byte

func (m members) raw(key string, v []byte) members {
	if len(m) > 0 {
		m = append(m, ',')
	}
	m = appendQuote(m, key)
	m = append(m, ':')
	return append(m, v...)
}

func (m members) value(key string, v any) (members, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return m, err
	}
	return m.raw(key, b), nil
}

func appendQuote(dst []byte, s string) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}

// decorate wraps a method's members into the result object the era expects:
// resultType first and serverInfo in _meta for 2026-07-28, with ttlMs and
// cacheScope on cacheable complete results; nothing of the sort for 2025.
func (c *call) decorate(b []byte, res *result) []byte {
	start := len(b)
	b = append(b, '{')
	modern := c.era == EraModern
	if modern {
		if res.inputRequired {
			b = append(b, `"resultType":"input_required"`...)
		} else {
			b = append(b, `"resultType":"complete"`...)
		}
		if len(res.members) > 0 {
			b = append(b, ',')
		}
	}
	b = append(b, res.members...)
	if modern && res.cacheable && !res.inputRequired {
		b = append(b, `,"ttlMs":0,"cacheScope":"private"`...)
	}
	meta := res.meta
	if !modern && len(meta) > 0 {
		meta = withoutReservedMeta(meta)
	}
	if modern || len(meta) > 0 {
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, `"_meta":{`...)
		if modern {
			b = append(b, c.h.serverInfoModern...)
		}
		if len(meta) > 0 {
			enc, err := json.Marshal(meta, json.Deterministic(true))
			if err == nil && len(enc) > 2 {
				if modern {
					b = append(b, ',')
				}
				b = append(b, enc[1:len(enc)-1]...)
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// withoutReservedMeta drops io.modelcontextprotocol/* keys, which 2025
// clients do not know.
func withoutReservedMeta(meta map[string]any) map[string]any {
	out := make(map[string]any, len(meta))
	for k, v := range meta {
		if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
			out[k] = v
		}
	}
	return out
}

// Header values shared by every response. They are never appended to, so
// sharing the slices is safe and saves an allocation per header.
var (
	contentTypeJSON = []string{"application/json"}
	noStore         = []string{"no-store"}
	versionHeaders  = map[string][]string{
		Version20260728: {Version20260728},
		Version20250618: {Version20250618},
		Version20250326: {Version20250326},
	}
)

// chunkingThreshold is net/http's response buffer (bufferBeforeChunkingSize):
// an answer up to it gets its Content-Length from net/http itself.
const chunkingThreshold = 2048

var outPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// writeResult writes {"jsonrpc","id","result"} with the decorated result,
// assembled in one pooled buffer.
func (c *call) writeResult(id []byte, res *result) {
	if res.kept {
		c.writeTail(id, res.members)
		return
	}
	bp := outPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = c.decorate(b, res)
	b = append(b, '}')
	hdr := c.w.Header()
	hdr["Content-Type"] = contentTypeJSON
	if len(b) > chunkingThreshold {
		// net/http sends an answer it could not buffer whole (past 2 KB) in
		// chunks: chunk framing and one more write(2) for the closing chunk.
		// The length is known, so the answer goes as one body with it, as
		// net/http already sends every shorter one (docs/performance.md,
		// "Kadu and Dunning as fast as the Inbox (issue 28)").
		hdr["Content-Length"] = []string{strconv.Itoa(len(b))}
	}
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(b)
	putOut(bp, b)
	if res.scratch != nil {
		putOut(res.scratch, res.members)
	}
}

// writeTail writes {"jsonrpc","id" and then the kept tail, in two writes:
// the head goes into net/http's response buffer and the tail follows it,
// so a catalog of tens of kilobytes is not copied into a buffer of ours
// first (the copy was an eighth of an in-process tools/list). Past
// chunkingThreshold the answer carries its Content-Length, as
// writeResult's; up to it net/http buffers both writes and sets the length
// itself, as before: the same headers and bytes (goldens unchanged,
// TestKeptAnswersAreWrittenAsBuilt).
func (c *call) writeTail(id, tail []byte) {
	bp := outPool.Get().(*[]byte)
	head := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	hdr := c.w.Header()
	hdr["Content-Type"] = contentTypeJSON
	if n := len(head) + len(tail); n > chunkingThreshold {
		hdr["Content-Length"] = []string{strconv.Itoa(n)}
	}
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(head)
	_, _ = c.w.Write(tail)
	putOut(bp, head)
}

// putOut gives a buffer back to outPool, unless it grew past what is worth
// keeping.
func putOut(bp *[]byte, b []byte) {
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		outPool.Put(bp)
	}
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// writeError answers with a JSON-RPC error, echoing the id when it could be
// read (null otherwise), with the error's HTTP status.
func (h *Handler) writeError(w http.ResponseWriter, id []byte, e *Error) {
	if e == errAlreadyWritten {
		return
	}
	if id == nil {
		id = []byte("null")
	}
	body, err := json.Marshal(wireError{Code: e.Code, Message: e.Message, Data: e.Data})
	if err != nil {
		body = []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	b := make([]byte, 0, len(body)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, body...)
	b = append(b, '}')
	status := e.Status
	if status == 0 {
		status = http.StatusOK
	}
	hdr := w.Header()
	hdr["Content-Type"] = contentTypeJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// errAlreadyWritten tells the handler the answer was written by a hook (a
// step-up challenge) and nothing more is to be sent.
var errAlreadyWritten = &Error{Code: CodeInternalError, Message: "already written"}
