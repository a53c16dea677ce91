package restkit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// CompletionLimit is how many suggestions a completion answers at most
// (the protocol's bound); Completion says how many there were in all.
const CompletionLimit = 100

// IDSource is a listing route whose items a completion suggests: an
// item's external_id, else its id, when its external_id, id or label
// starts with what was typed. The route decides what the caller may see,
// so a completion never suggests what a read would not show.
type IDSource struct {
	// Path is the listing route, the API base included.
	Path string
	// Label is the member shown to people (a name, a description), also
	// matched by prefix.
	Label string
	// Page is the page size the reads ask for, in the listing's own
	// parameter ({"per_page": {"100"}}, {"limit": {"200"}}).
	Page url.Values
	// Recent is the first read's order, its most recently changed items
	// (nil: the route's own order).
	Recent url.Values
	// Search is the listing's search parameter ("q"): once something is
	// typed, a second read asks for the items it matches. "" when the
	// route does not search.
	Search string
	// QuietRefusal makes a completion whose every read is refused answer
	// no total at all rather than a total of 0 (the Inbox's answer; both
	// say there is nothing to suggest).
	QuietRefusal bool
}

// CompleteIDs suggests ids for the arguments (or template variables) each
// source names; any other argument gets no suggestion.
func CompleteIDs(b *restbridge.Bridge, sources map[string]IDSource) mcp.CompleteHandler {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		src, ok := sources[req.Argument]
		if !ok {
			return &mcp.Completion{Values: []string{}}, nil
		}
		return CompleteFrom(ctx, b, &req.Request, src, req.Value), nil
	}
}

// CompleteFrom reads the source's listing through its route — a page of
// its most recent items, and, once something not blank is typed and the
// route searches, a page of what its search matches — and suggests each
// item once, in the order read, matched case-insensitively. A refused
// read (no scope) suggests nothing.
func CompleteFrom(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, src IDSource, typed string) *mcp.Completion {
	first := url.Values{}
	for _, params := range []url.Values{src.Page, src.Recent} {
		for k, v := range params {
			first[k] = v
		}
	}
	queries := []url.Values{first}
	if src.Search != "" && strings.TrimSpace(typed) != "" {
		search := url.Values{src.Search: {typed}}
		for k, v := range src.Page {
			search[k] = v
		}
		queries = append(queries, search)
	}
	prefix := strings.ToLower(typed)
	values := []string{}
	seen := map[string]bool{}
	answered := false
	for _, q := range queries {
		status, body := b.Get(ctx, req, src.Path, q)
		if status != http.StatusOK {
			continue
		}
		answered = true
		var doc struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &doc)
		for _, item := range doc.Data {
			id, _ := item["id"].(string)
			ext, _ := item["external_id"].(string)
			label, _ := item[src.Label].(string)
			ref := ext
			if ref == "" {
				ref = id
			}
			if ref == "" || seen[ref] {
				continue
			}
			if strings.HasPrefix(strings.ToLower(ext), prefix) || strings.HasPrefix(strings.ToLower(id), prefix) || strings.HasPrefix(strings.ToLower(label), prefix) {
				seen[ref] = true
				values = append(values, ref)
			}
		}
	}
	if !answered && src.QuietRefusal {
		return &mcp.Completion{Values: values}
	}
	return Completion(values)
}

// Completion answers values, at most CompletionLimit of them, saying how
// many there were and whether some were left out.
func Completion(values []string) *mcp.Completion {
	total := len(values)
	more := false
	if len(values) > CompletionLimit {
		values, more = values[:CompletionLimit], true
	}
	return &mcp.Completion{Values: values, Total: &total, HasMore: more}
}
