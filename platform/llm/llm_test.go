package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// The request carries the conversation (an assistant message that only
// calls tools with content null, the tool's answer), the offered functions
// and the output bound; the answer's tool calls and usage, cached tokens
// included, come back.
func TestChatToolCallsAndUsage(t *testing.T) {
	t.Parallel()
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+testKey {
			t.Errorf("request %s %s", r.URL.Path, r.Header.Get("Authorization"))
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		_, _ = io.WriteString(w, `{"model":"m-2026","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"call_1","type":"function","function":{"name":"emails_list","arguments":"{\"status\":\"processed\"}"}}]}}],
			"usage":{"prompt_tokens":1000,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":400}}}`)
	}))
	defer srv.Close()
	c := New(Config{URL: srv.URL + "/v1/", APIKey: testKey})
	resp, err := c.Chat(context.Background(), Request{
		Model: "m",
		Messages: []Message{
			{Role: RoleSystem, Content: "s"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0", Type: "function", Function: FunctionCall{Name: "x", Arguments: "{}"}}}},
			{Role: RoleTool, ToolCallID: "call_0", Content: `{"data":[]}`},
		},
		Tools:     []Tool{FunctionTool("emails_list", "List e-mails", json.RawMessage(`{"type":"object"}`))},
		MaxTokens: 256,
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := body["messages"].([]any)
	if a := msgs[1].(map[string]any); a["content"] != nil || a["tool_calls"] == nil {
		t.Errorf("assistant message sent as %v", a)
	}
	if tm := msgs[2].(map[string]any); tm["tool_call_id"] != "call_0" || tm["role"] != "tool" {
		t.Errorf("tool message sent as %v", tm)
	}
	if body["max_completion_tokens"] != 256.0 || body["tools"] == nil || body["response_format"] != nil || body["temperature"] != nil {
		t.Errorf("body %v", body)
	}
	if resp.Model != "m-2026" || resp.Content != nil || resp.FinishReason != "tool_calls" || len(resp.ToolCalls) != 1 ||
		resp.ToolCalls[0].Function.Name != "emails_list" || resp.ToolCalls[0].Function.Arguments != `{"status":"processed"}` {
		t.Errorf("response %+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 1000, CachedTokens: 400, OutputTokens: 20}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if m := resp.Message(); m.Role != RoleAssistant || len(m.ToolCalls) != 1 {
		t.Errorf("message %+v", m)
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status    int
		body      string
		retryable bool
		want      string
	}{
		{500, `{"error":{"message":"boom","type":"server_error"}}`, true, "HTTP 500: boom (server_error)"},
		{429, `{"error":"slow down"}`, true, "slow down"},
		{401, `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`, false, "[redacted]"},
		{200, `<html>`, false, "malformed"},
		{200, `{"choices":[],"usage":{"prompt_tokens":7}}`, false, "no choices"},
	}
	for _, c := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		resp, err := New(Config{URL: srv.URL, APIKey: testKey}).Chat(context.Background(), Request{Model: "m"})
		srv.Close()
		var e *Error
		if !errors.As(err, &e) || IsRetryable(err) != c.retryable || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), testKey) {
			t.Errorf("%d %s: %v", c.status, c.body, err)
		}
		if strings.Contains(c.body, "prompt_tokens") && resp.Usage.InputTokens != 7 {
			t.Errorf("usage not kept with the error: %+v", resp.Usage)
		}
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices the client leaving only once the body is read
		<-r.Context().Done()
	}))
	defer slow.Close()
	_, err := New(Config{URL: slow.URL, Timeout: 50 * time.Millisecond}).Chat(context.Background(), Request{Model: "m"})
	if !errors.Is(err, context.DeadlineExceeded) || !IsRetryable(err) {
		t.Errorf("timeout: %v", err)
	}
	if _, err := New(Config{}).Chat(context.Background(), Request{Model: "m"}); err == nil || IsRetryable(err) {
		t.Errorf("no URL: %v", err)
	}
}
