// Package llm is a client of the OpenAI-compatible chat-completions API
// (OpenAI itself, gateways that mirror it, a local vLLM or Ollama): one
// request, one answer, with tools offered as functions, the tool calls the
// model asks for, and the usage it reports, cached prompt tokens included.
// It knows nothing of any product: the Inbox's processing agent and Kadu's
// agent mode build their prompts on it (a product never imports another,
// so what both need lives in the platform floor; docs/decisions.md
// "Layers").
//
// What it guarantees: the API key never appears in an error; a failure
// says whether the same request may succeed later (HTTP 408, 429, 5xx,
// timeouts and network failures are retryable; a rejected request, the
// caller's cancellation or an unusable body are not); an answer larger than
// MaxResponseBytes is refused rather than read; and whenever the server
// answered with a usable body its usage is returned, even together with an
// error, so the spend is metered.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// Config configures a Client.
type Config struct {
	// URL is the API base, e.g. "https://api.openai.com/v1"; requests go
	// to URL + "/chat/completions".
	URL string
	// APIKey is sent as a Bearer token (omitted when empty, for local
	// servers). It never appears in errors.
	APIKey string
	// HTTPClient defaults to a plain client.
	HTTPClient *http.Client
	// Timeout bounds one request (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxResponseBytes bounds the answer read (DefaultMaxResponseBytes).
	MaxResponseBytes int
}

// Defaults of Config.
const (
	DefaultTimeout          = 2 * time.Minute
	DefaultMaxResponseBytes = 8 << 20
	maxErrorMessageLength   = 300
)

// Client calls one chat-completions API. It is safe for concurrent use.
type Client struct{ cfg Config }

// New returns a client of the API cfg describes.
func New(cfg Config) *Client {
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	// The transport traces requests made inside a trace (platform/tracing).
	hc := http.Client{}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	hc.Transport = tracing.NewTransport(hc.Transport)
	cfg.HTTPClient = &hc
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return &Client{cfg: cfg}
}

// Timeout is the bound of one request.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// Message is one message of a conversation: system, user, assistant (with
// the tool calls it asked for, if any) or tool (the result of one call,
// answering ToolCallID).
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes an assistant message that only calls tools with
// "content": null, as the API's own answers do.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	if m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0 {
		return json.Marshal(struct {
			Role      string     `json:"role"`
			Content   *string    `json:"content"`
			ToolCalls []ToolCall `json:"tool_calls"`
		}{m.Role, nil, m.ToolCalls})
	}
	return json.Marshal(plain(m))
}

// The roles of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is a call the model asks for: a function by name with its
// arguments as a JSON text (which the model wrote: it may be anything).
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function offered to the model.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes an offered function: its name, what it is for and the
// JSON Schema of its arguments.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// FunctionTool is a Tool of type "function".
func FunctionTool(name, description string, parameters json.RawMessage) Tool {
	return Tool{Type: "function", Function: Function{Name: name, Description: description, Parameters: parameters}}
}

// Request is one chat-completions request.
type Request struct {
	// Model names the model (required).
	Model    string
	Messages []Message
	// Tools are the functions the model may call (none: it can only
	// answer).
	Tools []Tool
	// JSONObject asks for a JSON object answer (response_format).
	JSONObject bool
	// Temperature, when set, is sent (0 for repeatable answers).
	Temperature *float64
	// MaxTokens, when positive, bounds the answer's tokens
	// (max_completion_tokens): what a caller with a budget relies on.
	MaxTokens int
}

// Usage is what a request consumed as the server reports it.
type Usage struct {
	// InputTokens are the prompt's tokens, CachedTokens included.
	InputTokens int
	// CachedTokens are the prompt tokens the server read from its cache.
	CachedTokens int
	// OutputTokens are the answer's tokens.
	OutputTokens int
}

// Response is the first choice of an answer.
type Response struct {
	// Model is the model that answered (the server's name for it, else
	// the request's).
	Model string
	// Content is the answer's text, nil when the server sent none (a
	// message that only calls tools).
	Content *string
	// Refusal is the model's refusal, when it refused.
	Refusal string
	// ToolCalls are the calls the model asks for.
	ToolCalls []ToolCall
	// FinishReason is why the model stopped ("stop", "tool_calls",
	// "length", …).
	FinishReason string
	Usage        Usage
}

// Message is the answer as the assistant message to append to the
// conversation.
func (r Response) Message() Message {
	m := Message{Role: RoleAssistant, ToolCalls: r.ToolCalls}
	if r.Content != nil {
		m.Content = *r.Content
	}
	return m
}

// Error is a failed request. Message is safe to store and show: it never
// contains the API key.
type Error struct {
	// StatusCode is the server's HTTP status, 0 when there was no HTTP
	// answer (timeout, network, canceled) or it was unusable.
	StatusCode int
	Message    string
	// Retryable says the same request may succeed later: HTTP 408, 429
	// and 5xx, timeouts and network failures.
	Retryable bool
	// Err is the underlying cause when there is one (context.Canceled,
	// context.DeadlineExceeded, a network error), for errors.Is.
	Err error
}

// Error renders "HTTP status: message", or the message alone.
func (e *Error) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
	}
	return e.Message
}

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is an *Error worth retrying later.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

type chatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	Tools          []Tool    `json:"tools,omitempty"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_completion_tokens,omitempty"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string    `json:"content"`
			Refusal   *string    `json:"refusal"`
			ToolCalls []ToolCall `json:"tool_calls"`
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

// Encode is the request body Chat sends for req, for callers that bound a
// request by its size before sending it.
func Encode(req Request) ([]byte, error) {
	body := chatRequest{Model: req.Model, Messages: req.Messages, Tools: req.Tools, Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if req.JSONObject {
		body.ResponseFormat = &struct {
			Type string `json:"type"`
		}{"json_object"}
	}
	if body.Messages == nil {
		body.Messages = []Message{}
	}
	return json.Marshal(body)
}

func (c *Client) fail(status int, retryable bool, cause error, format string, args ...any) *Error {
	return &Error{StatusCode: status, Retryable: retryable, Err: cause, Message: c.Redact(fmt.Sprintf(format, args...))}
}

// Redact removes the API key from text that may echo it (the server's
// error messages, transport errors).
func (c *Client) Redact(s string) string {
	if len(c.cfg.APIKey) >= 4 {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
	}
	return s
}

// Chat sends one request and returns the first choice. The error is an
// *Error; when the server answered with a usable body that the caller may
// still be charged for, the Response carries its Usage.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	if !tracing.Recording(ctx) {
		return c.chat(ctx, req)
	}
	// Inside a trace, a CLIENT span by the GenAI conventions ("chat
	// {model}"), the HTTP request's span under it (docs/operating.md
	// "Traces").
	ctx, span := tracing.Start(ctx, "chat "+req.Model, trace.SpanKindClient,
		attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", req.Model))
	res, err := c.chat(ctx, req)
	if res.Model != "" {
		span.SetAttributes(attribute.String("gen_ai.response.model", res.Model))
	}
	span.SetAttributes(attribute.Int("gen_ai.usage.input_tokens", res.Usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", res.Usage.OutputTokens))
	errType := ""
	var e *Error
	if errors.As(err, &e) && e.StatusCode != 0 {
		errType = strconv.Itoa(e.StatusCode)
	}
	tracing.End(span, err, errType)
	return res, err
}

// chat is Chat without its span.
func (c *Client) chat(ctx context.Context, req Request) (Response, error) {
	if c.cfg.URL == "" {
		return Response{}, c.fail(0, false, nil, "no API URL configured")
	}
	if req.Model == "" {
		return Response{}, c.fail(0, false, nil, "no model named")
	}
	raw, err := Encode(req)
	if err != nil {
		return Response{}, c.fail(0, false, err, "encoding the request: %v", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	httpReq, err := http.NewRequestWithContext(runCtx, http.MethodPost, c.cfg.URL+"/chat/completions", bytes.NewReader(raw))
	if err != nil {
		return Response{}, c.fail(0, false, err, "invalid API URL")
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(httpReq)
	if err != nil {
		return Response{}, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.cfg.MaxResponseBytes)+1))
	if err != nil {
		return Response{}, c.transportError(ctx, err)
	}
	if len(respBody) > c.cfg.MaxResponseBytes {
		return Response{}, c.fail(resp.StatusCode, false, nil, "response larger than %d bytes", c.cfg.MaxResponseBytes)
	}
	if resp.StatusCode >= 300 {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500
		return Response{}, c.fail(resp.StatusCode, retry, nil, "%s", serverMessage(resp.StatusCode, respBody))
	}
	var cr chatResponse
	if err := json.Unmarshal(respBody, &cr); err != nil {
		return Response{}, c.fail(0, false, err, "malformed chat-completions response: %v", err)
	}
	out := Response{Model: req.Model}
	if cr.Model != "" {
		out.Model = cr.Model
	}
	if u := cr.Usage; u != nil {
		out.Usage = Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
		if d := u.PromptTokensDetails; d != nil {
			out.Usage.CachedTokens = d.CachedTokens
		}
	}
	if len(cr.Choices) == 0 {
		return out, c.fail(0, false, nil, "response has no choices")
	}
	ch := cr.Choices[0]
	out.Content, out.ToolCalls, out.FinishReason = ch.Message.Content, ch.Message.ToolCalls, ch.FinishReason
	if ch.Message.Refusal != nil {
		out.Refusal = *ch.Message.Refusal
	}
	return out, nil
}

// transportError classifies a failure to get an answer: the caller's
// cancellation (not retryable), the request's timeout or a network
// failure (retryable).
func (c *Client) transportError(parent context.Context, err error) *Error {
	if perr := parent.Err(); perr != nil {
		if errors.Is(perr, context.DeadlineExceeded) {
			return c.fail(0, true, perr, "caller's deadline exceeded")
		}
		return c.fail(0, false, perr, "canceled")
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return c.fail(0, true, context.DeadlineExceeded, "no answer within %s", c.cfg.Timeout)
	}
	return c.fail(0, true, err, "request failed: %v", err)
}

// serverMessage extracts the server's error message from an error body
// ({"error": {"message": …}} or {"error": "…"}), else a short excerpt of
// the body.
func serverMessage(status int, body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			if obj.Type != "" {
				return Truncate(obj.Message) + " (" + obj.Type + ")"
			}
			return Truncate(obj.Message)
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return Truncate(s)
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" {
		return Truncate(t)
	}
	return http.StatusText(status)
}

// Truncate collapses whitespace and cuts s to a length fit for an error
// message: past maxErrorMessageLength bytes, its first that many
// characters and an ellipsis.
func Truncate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxErrorMessageLength {
		return s
	}
	i := 0
	for k := range s {
		if i == maxErrorMessageLength {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
