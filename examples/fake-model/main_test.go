package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/llm"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }

// The rule, through the platform's own chat-completions client: the first
// offered tool is asked for with {} while no tool has answered; then a text
// quoting the result; each answer reports the usage the flags set; a body
// that is not a request is refused with the API's error shape.
func TestFakeModelRule(t *testing.T) {
	t.Parallel()
	out := &syncBuf{}
	srv := httptest.NewServer(handler(1_000_000, 20, out))
	t.Cleanup(srv.Close)
	c := llm.New(llm.Config{URL: srv.URL + "/v1"})
	tools := []llm.Tool{llm.FunctionTool("dunning_charges_list", "Lists charges.", nil), llm.FunctionTool("other", "", nil)}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You are an agent."}, {Role: llm.RoleUser, Content: "{}"}}
	first, err := c.Chat(context.Background(), llm.Request{Model: "gpt-4o-mini", Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Function.Name != "dunning_charges_list" || first.ToolCalls[0].Function.Arguments != "{}" ||
		first.FinishReason != "tool_calls" || first.Usage.InputTokens != 1_000_000 || first.Usage.OutputTokens != 20 {
		t.Fatalf("first answer %+v", first)
	}
	msgs = append(msgs, first.Message(), llm.Message{Role: llm.RoleTool, ToolCallID: first.ToolCalls[0].ID, Content: `{"data":[]}`})
	second, err := c.Chat(context.Background(), llm.Request{Model: "gpt-4o-mini", Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.ToolCalls) != 0 || second.Content == nil || *second.Content != `The tool answered: {"data":[]}` || second.FinishReason != "stop" {
		t.Fatalf("second answer %+v", second)
	}
	if s := out.b.String(); !strings.Contains(s, "request 1 (2 messages): asks for dunning_charges_list") || !strings.Contains(s, "request 2 (4 messages): answers") {
		t.Errorf("printed %q", s)
	}
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`nope`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad body: %d", resp.StatusCode)
	}
}
