package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// protocol2026 is the protocol the products speak by default; requests of
// it carry the version, capabilities and client in _meta and name the
// method (and tool) in headers.
const protocol2026 = "2026-07-28"

// call is one MCP request loadgen replays: a method (and for tools/call a
// tool and its arguments) in one protocol version, with a bearer token or
// none.
type call struct {
	URL      string
	Token    string
	Method   string
	Tool     string
	Args     string // JSON; empty means {}
	Protocol string // empty means protocol2026
}

// body is the JSON-RPC request. Versions before 2026-07-28 have no
// per-request _meta: a stateless server of that era (the official SDK's)
// takes default initialization parameters for each request.
func (c call) body() []byte {
	args := c.Args
	if args == "" {
		args = "{}"
	}
	var params []string
	if c.Method == "tools/call" {
		params = append(params, `"name":`+strconv.Quote(c.Tool), `"arguments":`+args)
	}
	if c.protocol() >= protocol2026 {
		params = append(params, `"_meta":{"io.modelcontextprotocol/protocolVersion":`+strconv.Quote(c.protocol())+
			`,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadgen","version":"1"}}`)
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"method":` + strconv.Quote(c.Method) + `,"params":{` + strings.Join(params, ",") + `}}`)
}

func (c call) protocol() string {
	if c.Protocol == "" {
		return protocol2026
	}
	return c.Protocol
}

// header is the request's HTTP header.
func (c call) header() http.Header {
	h := http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {c.protocol()},
	}
	if c.protocol() >= protocol2026 {
		h.Set("Mcp-Method", c.Method)
		if c.Tool != "" {
			h.Set("Mcp-Name", c.Tool)
		}
	}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	return h
}

// sender sends one call again and again; made once, since the body and
// header are the same every time.
type sender struct {
	c      call
	body   []byte
	header http.Header
	client *http.Client
}

func newSender(c call, client *http.Client) *sender {
	return &sender{c: c, body: c.body(), header: c.header(), client: client}
}

// send posts the request and reads the whole answer. An error is a failed
// exchange, a status other than 200, or an answer carrying an MCP error (a
// JSON-RPC error or a tool result with isError): for the benchmark and the
// watch each of these is a request not served.
func (s *sender) send() ([]byte, error) {
	req, err := http.NewRequest("POST", s.c.URL, bytes.NewReader(s.body))
	if err != nil {
		return nil, err
	}
	req.Header = s.header.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return b, err
	}
	return b, refusal(resp.StatusCode, b)
}

// refusal reports why an answer is not a served request, or nil.
func refusal(status int, b []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", status, b)
	}
	if bytes.Contains(b, []byte(`"isError":true`)) || bytes.Contains(b, []byte(`"error":{"code"`)) {
		return fmt.Errorf("error answer: %.300s", b)
	}
	return nil
}

// newClient keeps one connection per worker alive.
func newClient(workers int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers, DisableCompression: true}}
}
