package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kobana/kobana-mcp/mcp"
)

// Client talks to one MCP endpoint. The zero value is not usable: set URL.
// A Client is safe for concurrent use; it keeps no protocol state between
// requests (2026-07-28 has none), only the tools it listed, so that calls
// can mirror the arguments their schemas put in headers.
type Client struct {
	// URL is the MCP endpoint (https://host/mcp).
	URL string
	// HTTP sends the requests; nil is http.DefaultClient.
	HTTP *http.Client
	// Token, when set, is sent as a Bearer token.
	Token string
	// Info names the client in every request's _meta.
	Info mcp.Implementation
	// Answer answers the server's input requests (a confirmation, a
	// choice). Nil declares no client capability, so the server asks
	// nothing; with it the client declares form elicitation.
	Answer Answerer
	// MaxRounds caps how many input_required results one call answers
	// (default 5): a server that keeps asking is an error, not a loop.
	MaxRounds int

	id    atomic.Int64
	mu    sync.Mutex
	tools map[string]*Tool
}

// maxBody caps what the client reads of one answer.
const maxBody = 32 << 20

// capabilities is what the client declares in _meta.
func (c *Client) capabilities() map[string]any {
	if c.Answer == nil {
		return map[string]any{}
	}
	return map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
}

// envelope is the per-request _meta of 2026-07-28.
func (c *Client) envelope() map[string]any {
	meta := map[string]any{
		mcp.MetaProtocolVersion:    mcp.Version20260728,
		mcp.MetaClientCapabilities: c.capabilities(),
	}
	if c.Info.Name != "" {
		meta[mcp.MetaClientInfo] = c.Info
	}
	return meta
}

// response is one JSON-RPC answer.
type response struct {
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// post sends one request and returns its result, raw. params is copied
// into the request with _meta added; headers are the extra transport
// headers (Mcp-Name, Mcp-Param-*).
func (c *Client) post(ctx context.Context, method string, params map[string]any, headers http.Header) (json.RawMessage, error) {
	p := make(map[string]any, len(params)+1)
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = c.envelope()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": p})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range headers {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.Version20260728)
	req.Header.Set(mcp.HeaderMethod, method)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(raw) > maxBody {
		return nil, fmt.Errorf("the answer is larger than %d bytes", maxBody)
	}
	var r response
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || json.Unmarshal(raw, &r) != nil || (r.Result == nil && r.Error == nil) {
		return nil, httpError(resp, raw)
	}
	if r.Error != nil {
		r.Error.Status = resp.StatusCode
		return nil, r.Error
	}
	return r.Result, nil
}

// ErrTooManyRounds is returned when the server still asks for input after
// MaxRounds answers.
var ErrTooManyRounds = errors.New("the server kept asking for input")

// request runs one request to its final result, answering every
// input_required result on the way by retrying the same request with the
// answers and the requestState echoed byte for byte (a retry is a new
// request with a new id and the same headers).
func (c *Client) request(ctx context.Context, method string, params map[string]any, headers http.Header) (json.RawMessage, error) {
	rounds := c.MaxRounds
	if rounds <= 0 {
		rounds = 5
	}
	for round := 0; ; round++ {
		raw, err := c.post(ctx, method, params, headers)
		if err != nil {
			return nil, err
		}
		var head struct {
			ResultType    string                  `json:"resultType"`
			InputRequests map[string]InputRequest `json:"inputRequests"`
			RequestState  *string                 `json:"requestState"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("%s: malformed result: %w", method, err)
		}
		if head.ResultType != "input_required" {
			return raw, nil
		}
		if round >= rounds {
			return nil, ErrTooManyRounds
		}
		answers, err := c.answer(ctx, head.InputRequests)
		if err != nil {
			return nil, err
		}
		retry := make(map[string]any, len(params)+2)
		for k, v := range params {
			if k != "inputResponses" && k != "requestState" {
				retry[k] = v
			}
		}
		if len(answers) > 0 {
			retry["inputResponses"] = answers
		}
		if head.RequestState != nil {
			retry["requestState"] = *head.RequestState
		}
		params = retry
	}
}

// nameHeader is the Mcp-Name header for methods that carry one.
func nameHeader(value string) http.Header {
	return http.Header{http.CanonicalHeaderKey(mcp.HeaderName): {headerText(value)}}
}

// headerText writes a header value that mirrors the body: literally when
// it is visible ASCII that survives trimming and does not look like the
// base64 sentinel, else as =?base64?…?= (the transport's rule).
func headerText(v string) string {
	plain := v != "" && v == strings.Trim(v, " \t") && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] >= 0x7f {
			plain = false
		}
	}
	if plain {
		return v
	}
	return "=?base64?" + base64Std(v) + "?="
}
