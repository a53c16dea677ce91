// Command fake-model is a local server speaking the OpenAI-compatible
// chat-completions API (POST /v1/chat/completions), for trying Kadu's agent
// tasks without a model account: docs/kadu.md "Kadu in a few minutes" runs
// an agent on it to show a budget that pauses. It is not a model: its
// answers follow one fixed rule, so a run on it is the same every time.
//
// The rule: while the conversation holds no tool result, it asks for the
// first tool offered, with empty arguments ({}); once a tool has answered,
// it answers with a text naming the tool and the start of its result. Each
// answer reports the usage given by -prompt-tokens (0: the request's size
// in bytes over four, a rough token count) and -completion-tokens, which is
// what Kadu prices the step by. It prints one line per request.
//
//	go build -o fake-model ./examples/fake-model
//	./fake-model -addr 127.0.0.1:9001 -prompt-tokens 1000000
//	./kobana-mcp serve --kadu-model-url http://127.0.0.1:9001/v1
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9001", "address to listen on")
	promptTokens := flag.Int("prompt-tokens", 0, "prompt tokens each answer reports (0: the request's size over four)")
	completionTokens := flag.Int("completion-tokens", 20, "completion tokens each answer reports")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: handler(*promptTokens, *completionTokens, os.Stdout), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stdout, "fake-model: listening on http://%s/v1\n", *addr)
	log.Fatal(srv.ListenAndServe())
}

// request is the part of a chat-completions request the rule reads.
type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// handler answers chat-completions requests by the rule in the package
// comment, writing a line per request to out.
func handler(promptTokens, completionTokens int, out io.Writer) http.Handler {
	var mu sync.Mutex
	n := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		var req request
		if err == nil {
			err = json.Unmarshal(raw, &req)
		}
		if err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"the body is not a chat-completions request with messages","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		n++
		call := n
		mu.Unlock()
		prompt := promptTokens
		if prompt <= 0 {
			prompt = len(raw) / 4
		}
		var lastTool string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				lastTool, _ = m.Content.(string)
			}
		}
		var msg map[string]any
		finish := "stop"
		switch {
		case lastTool == "" && len(req.Tools) > 0:
			name := req.Tools[0].Function.Name
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_%d", call), "type": "function", "function": map[string]any{"name": name, "arguments": "{}"}}}}
			finish = "tool_calls"
			fmt.Fprintf(out, "fake-model: request %d (%d messages): asks for %s\n", call, len(req.Messages), name)
		default:
			text := "Nothing to call."
			if lastTool != "" {
				if len(lastTool) > 120 {
					lastTool = lastTool[:120] + "…"
				}
				text = "The tool answered: " + lastTool
			}
			msg = map[string]any{"role": "assistant", "content": text}
			fmt.Fprintf(out, "fake-model: request %d (%d messages): answers\n", call, len(req.Messages))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", call), "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
			"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": completionTokens, "total_tokens": prompt + completionTokens}})
	})
	return mux
}
