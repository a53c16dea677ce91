package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/inbox/extract"
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
	defaultOpenAITimeout  = 2 * time.Minute
	defaultMaxInputChars  = 60_000
	maxProviderBodyBytes  = 8 << 20
	maxErrorMessageLength = 300
)

// OpenAI returns a provider that calls an OpenAI-compatible
// chat-completions API with JSON output (response_format json_object,
// temperature 0). Its output is {"extraction": <extract.Result>,
// "agent": <the model's JSON object>}.
func OpenAI(cfg OpenAIConfig) Provider {
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultOpenAITimeout
	}
	if cfg.MaxInputChars <= 0 {
		cfg.MaxInputChars = defaultMaxInputChars
	}
	return &openAIProvider{cfg: cfg}
}

type openAIProvider struct{ cfg OpenAIConfig }

func (p *openAIProvider) Name() string { return OpenAIName }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string        `json:"model"`
	Messages       []chatMessage `json:"messages"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Temperature float64 `json:"temperature"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func (p *openAIProvider) fail(status int, retryable bool, cause error, format string, args ...any) *Error {
	return &Error{Provider: OpenAIName, StatusCode: status, Retryable: retryable, Err: cause, Message: p.redact(fmt.Sprintf(format, args...))}
}

// redact removes the API key from text that may echo it (provider error
// messages, transport errors).
func (p *openAIProvider) redact(s string) string {
	if len(p.cfg.APIKey) >= 4 {
		s = strings.ReplaceAll(s, p.cfg.APIKey, "[redacted]")
	}
	return s
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
	body := chatRequest{
		Model: model,
		Messages: []chatMessage{
			{Role: "system", Content: systemPrompt(req.SystemMessage, nonce)},
			{Role: "user", Content: userPrompt(req.Input, result, texts, hints, nonce, p.cfg.MaxInputChars)},
		},
	}
	body.ResponseFormat.Type = "json_object"
	raw, err := json.Marshal(body)
	if err != nil {
		return Response{}, p.fail(0, false, err, "encoding the request: %v", err)
	}

	runCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	httpReq, err := http.NewRequestWithContext(runCtx, http.MethodPost, p.cfg.URL+"/chat/completions", bytes.NewReader(raw))
	if err != nil {
		return Response{}, p.fail(0, false, err, "invalid API URL")
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	if p.cfg.APIKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	resp, err := p.cfg.HTTPClient.Do(httpReq)
	if err != nil {
		return Response{}, p.transportError(ctx, err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderBodyBytes+1))
	if err != nil {
		return Response{}, p.transportError(ctx, err)
	}
	if len(respBody) > maxProviderBodyBytes {
		return Response{}, p.fail(resp.StatusCode, false, nil, "response larger than %d bytes", maxProviderBodyBytes)
	}
	if resp.StatusCode >= 300 {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500
		return Response{}, p.fail(resp.StatusCode, retry, nil, "%s", providerMessage(resp.StatusCode, respBody))
	}

	var cr chatResponse
	if err := json.Unmarshal(respBody, &cr); err != nil {
		return Response{}, p.fail(0, false, err, "malformed chat-completions response: %v", err)
	}
	out := Response{Provider: OpenAIName, Model: model, Usage: p.usage(cr)}
	if cr.Model != "" {
		out.Model = cr.Model
	}
	if len(cr.Choices) == 0 {
		return out, p.fail(0, false, nil, "response has no choices")
	}
	msg := cr.Choices[0].Message
	if msg.Refusal != nil && *msg.Refusal != "" {
		return out, p.fail(0, false, nil, "the model refused: %s", truncate(*msg.Refusal))
	}
	if msg.Content == nil {
		return out, p.fail(0, false, nil, "response message has no content (finish_reason %q)", cr.Choices[0].FinishReason)
	}
	content := strings.TrimSpace(*msg.Content)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return out, p.fail(0, false, err, "the model's answer is not a JSON object (finish_reason %q): %s", cr.Choices[0].FinishReason, truncate(content))
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
func (p *openAIProvider) usage(cr chatResponse) Usage {
	if cr.Usage == nil {
		return Usage{}
	}
	u := Usage{InputTokens: cr.Usage.PromptTokens, OutputTokens: cr.Usage.CompletionTokens}
	if d := cr.Usage.PromptTokensDetails; d != nil {
		u.CacheRead = d.CachedTokens
	}
	u.TotalCost = float64(u.InputTokens)*p.cfg.InputCostPerToken + float64(u.OutputTokens)*p.cfg.OutputCostPerToken
	if n := u.InputTokens + u.OutputTokens; n > 0 {
		u.CostPerToken = u.TotalCost / float64(n)
	}
	return u
}

// transportError classifies a failure to get an answer: the caller's
// cancellation (not retryable), the run's timeout or a network failure
// (retryable).
func (p *openAIProvider) transportError(parent context.Context, err error) *Error {
	if perr := parent.Err(); perr != nil {
		if errors.Is(perr, context.DeadlineExceeded) {
			return p.fail(0, true, perr, "caller's deadline exceeded")
		}
		return p.fail(0, false, perr, "canceled")
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return p.fail(0, true, context.DeadlineExceeded, "no answer within %s", p.cfg.Timeout)
	}
	return p.fail(0, true, err, "request failed: %v", err)
}

// providerMessage extracts the provider's error message from an error
// body ({"error": {"message": …}} or {"error": "…"}), else a short
// excerpt of the body.
func providerMessage(status int, body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			if obj.Type != "" {
				return truncate(obj.Message) + " (" + obj.Type + ")"
			}
			return truncate(obj.Message)
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return truncate(s)
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" {
		return truncate(t)
	}
	return http.StatusText(status)
}

func truncate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxErrorMessageLength {
		return cutRunes(s, maxErrorMessageLength) + "…"
	}
	return s
}
