package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/inbox/extract"
	"github.com/kobana/kobana-mcp/platform/llm"
)

// OpenAIConfig configures an OpenAI-compatible chat-completions provider
// (OpenAI itself, Azure-style gateways, OpenRouter, a local vLLM/Ollama).
type OpenAIConfig struct {
	// URL is the API base, e.g. "https://api.openai.com/v1"; requests go
	// to URL + "/chat/completions".
	URL string
	// Model is used when the request names none.
	Model string
	// APIKey is sent as a Bearer token (omitted when empty, for local
	// servers). It never appears in errors.
	APIKey string
	// HTTPClient defaults to a plain client; Timeout bounds each run.
	HTTPClient *http.Client
	// Prices per token, to compute Usage costs. Cached input tokens are
	// charged at the input price.
	InputCostPerToken  float64
	OutputCostPerToken float64
	// Timeout bounds one run (default 2 minutes).
	Timeout time.Duration
	// MaxInputChars bounds the e-mail text sent to the model (default
	// 60 000 characters); the rest is cut and the model told so.
	MaxInputChars int
}

// OpenAIName is the OpenAI provider's Name.
const OpenAIName = "openai"

const (
	defaultOpenAITimeout = 2 * time.Minute
	defaultMaxInputChars = 60_000
	maxProviderBodyBytes = 8 << 20
)

// OpenAI returns a provider that calls an OpenAI-compatible
// chat-completions API (through platform/llm) with JSON output (response_format json_object,
// temperature 0). Its output is {"extraction": <extract.Result>,
// "agent": <the model's JSON object>}.
func OpenAI(cfg OpenAIConfig) Provider {
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultOpenAITimeout
	}
	if cfg.MaxInputChars <= 0 {
		cfg.MaxInputChars = defaultMaxInputChars
	}
	client := llm.New(llm.Config{URL: cfg.URL, APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient, Timeout: cfg.Timeout, MaxResponseBytes: maxProviderBodyBytes})
	return &openAIProvider{cfg: cfg, client: client}
}

type openAIProvider struct {
	cfg    OpenAIConfig
	client *llm.Client
}

func (p *openAIProvider) Name() string { return OpenAIName }

func (p *openAIProvider) fail(status int, retryable bool, cause error, format string, args ...any) *Error {
	return &Error{Provider: OpenAIName, StatusCode: status, Retryable: retryable, Err: cause, Message: p.client.Redact(fmt.Sprintf(format, args...))}
}

// fromLLM is the Inbox's form of the chat-completions client's error.
func fromLLM(err error) *Error {
	var e *llm.Error
	if errors.As(err, &e) {
		return &Error{Provider: OpenAIName, StatusCode: e.StatusCode, Retryable: e.Retryable, Err: e.Err, Message: e.Message}
	}
	return &Error{Provider: OpenAIName, Err: err, Message: err.Error()}
}

func (p *openAIProvider) Run(ctx context.Context, req Request) (Response, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if p.cfg.URL == "" {
		return Response{}, p.fail(0, false, nil, "no API URL configured")
	}
	if model == "" {
		return Response{}, p.fail(0, false, nil, "no model: neither the agent nor the provider names one")
	}
	result, texts := extract.Analyze(req.Input)
	hints, err := json.Marshal(result)
	if err != nil {
		return Response{}, p.fail(0, false, err, "encoding the extractor hints: %v", err)
	}
	nonce := newNonce()
	zero := 0.0
	cr, err := p.client.Chat(ctx, llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: systemPrompt(req.SystemMessage, nonce)},
			{Role: llm.RoleUser, Content: userPrompt(req.Input, result, texts, hints, nonce, p.cfg.MaxInputChars)},
		},
		JSONObject:  true,
		Temperature: &zero,
	})
	out := Response{Provider: OpenAIName, Model: model, Usage: p.usage(cr.Usage)}
	if cr.Model != "" {
		out.Model = cr.Model
	}
	if err != nil {
		return out, fromLLM(err)
	}
	if cr.Refusal != "" {
		return out, p.fail(0, false, nil, "the model refused: %s", truncate(cr.Refusal))
	}
	if cr.Content == nil {
		return out, p.fail(0, false, nil, "response message has no content (finish_reason %q)", cr.FinishReason)
	}
	content := strings.TrimSpace(*cr.Content)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return out, p.fail(0, false, err, "the model's answer is not a JSON object (finish_reason %q): %s", cr.FinishReason, truncate(content))
	}
	output, err := json.Marshal(struct {
		Extraction json.RawMessage `json:"extraction"`
		Agent      json.RawMessage `json:"agent"`
	}{hints, json.RawMessage(content)})
	if err != nil {
		return out, p.fail(0, false, err, "encoding the output: %v", err)
	}
	out.Output = output
	return out, nil
}

// usage converts the provider's token counts and prices the run.
func (p *openAIProvider) usage(lu llm.Usage) Usage {
	u := Usage{InputTokens: lu.InputTokens, OutputTokens: lu.OutputTokens, CacheRead: lu.CachedTokens}
	u.TotalCost = float64(u.InputTokens)*p.cfg.InputCostPerToken + float64(u.OutputTokens)*p.cfg.OutputCostPerToken
	if n := u.InputTokens + u.OutputTokens; n > 0 {
		u.CostPerToken = u.TotalCost / float64(n)
	}
	return u
}

func truncate(s string) string { return llm.Truncate(s) }
