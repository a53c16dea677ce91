package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Confirmation of destructive tools.
//
// A tool is destructive when [Tool.IsDestructive] says so. Nothing
// destructive runs without a person's confirmation:
//
//   - A 2026-07-28 client that declared form elicitation in this request
//     ([ClientCapabilities.ElicitForm]) gets an input_required result with one
//     form (key "confirm", a boolean "confirm") whose message says exactly
//     what will happen ([Tool.Confirm]), and a sealed requestState bound to
//     the caller, the tool, the arguments, an expiry and a nonce. The retry
//     that answers accept with confirm: true consumes the nonce and runs the
//     tool; a state already used answers -32602 and runs nothing. Decline,
//     cancel or an unticked box answer isError ("Nothing was done: …") and
//     spend the state too. A retry without an answer asks again, with a new
//     state that replaces (and spends) the one it carried.
//   - Any other client (the 2025 era, or 2026 without form elicitation)
//     goes to [ConfirmOptions.Unconfirmable], by default [Refuse].
//
// The tool stays listed either way: its annotations tell clients what it is.

// ConfirmKey is the key of the confirmation form in inputRequests and
// inputResponses, and the name of its boolean field.
const ConfirmKey = "confirm"

// ConfirmationRequiredCode is the error code in the text of the result
// [Refuse] answers.
const ConfirmationRequiredCode = "confirmation_required"

// ConfirmFunc describes what a destructive call is about to do, for the
// person to confirm: "Delete workspace 'Billing' (external id billing)?
// This cannot be undone." It should look the target up, with the caller's
// identity in ctx, so the message names it.
//
// When the call cannot go ahead (its target does not exist or is not the
// caller's to see, its arguments are invalid) it returns that answer as
// result, usually the tool error the tool itself would give: the client
// sees it at once, nothing is asked and nothing runs. An error fails the
// call as a handler error does. An empty message with no result falls back
// to the generic one.
type ConfirmFunc func(ctx context.Context, req *CallToolRequest) (message string, result *CallToolResult, err error)

// ConfirmOptions configure the confirmation of destructive tools.
type ConfirmOptions struct {
	// Disabled turns the server's confirmation step off for every tool: the
	// tools confirm themselves or need no confirmation (a protocol test
	// fixture). Products never set it.
	Disabled bool
	// Nonces records the confirmations used, so each runs its call at most
	// once. Nil keeps them in this process's memory, which is only right for
	// a single process; replicas must share a database-backed store.
	Nonces NonceStore
	// Unconfirmable decides what happens when the client cannot confirm;
	// nil is [Refuse].
	Unconfirmable ConfirmPolicy
}

// NonceStore remembers which confirmations were used.
type NonceStore interface {
	// Consume records nonce as used until expires (after which the state
	// carrying it no longer opens, so the record may be dropped). It returns
	// ErrNonceUsed when the nonce was already consumed; any other error
	// fails the call with -32603 and nothing runs.
	Consume(ctx context.Context, nonce string, expires time.Time) error
}

// ErrNonceUsed is returned by a [NonceStore] for a nonce consumed before:
// a replayed or concurrent second confirmation.
var ErrNonceUsed = errors.New("mcp: confirmation already used")

// ConfirmPolicy decides what a destructive tool does for a client that
// cannot confirm it through a form: any 2025 client (a JSON-only server
// cannot ask it anything), and a 2026-07-28 client that did not declare form
// elicitation in this request.
//
// [Refuse] runs nothing. A policy may instead hand out an approval link (a
// normal result, or an input_required URL elicitation for a 2026 client that
// declared URL mode — its retry comes back here with the state and answer
// in call.Request) and let the call run once it was approved.
type ConfirmPolicy interface {
	Unconfirmable(ctx context.Context, call *UnconfirmableCall) (Decision, error)
}

// Decision is a [ConfirmPolicy]'s answer.
type Decision struct {
	// Result is the answer when the tool does not run now: an error, an
	// approval link, an input_required result ([InputRequiredResult]).
	Result *CallToolResult
	// Run lets the tool run now (an approval granted out of band). The
	// policy is responsible for running an approval at most once.
	Run bool
}

// UnconfirmableCall is a destructive call from a client that cannot confirm.
type UnconfirmableCall struct {
	// Request is the call: era, capabilities, arguments, and on a retry the
	// state and answers of an earlier input_required result.
	Request *CallToolRequest
	// Tool is the tool called.
	Tool *Tool
	// Principal is the caller, as the Authorizer names it.
	Principal string
	// Reason says why the client cannot confirm, in words for a person.
	Reason string

	describe func() (string, *CallToolResult, error)
}

// Describe returns what the call is about to do ([Tool.Confirm]), or, when
// it cannot go ahead, the answer to give instead.
func (u *UnconfirmableCall) Describe() (message string, result *CallToolResult, err error) {
	return u.describe()
}

// Refuse is the policy that runs nothing for a client that cannot confirm:
// the answer is a tool error whose text is
// {"error":{"code":"confirmation_required","message":"…"}}, saying that
// this client cannot run destructive tools and that retrying will not help.
func Refuse() ConfirmPolicy { return refuse{} }

type refuse struct{}

func (refuse) Unconfirmable(_ context.Context, call *UnconfirmableCall) (Decision, error) {
	msg := fmt.Sprintf("Nothing was done: %s is a destructive tool and this client cannot confirm destructive tools "+
		"(it needs MCP 2026-07-28 with form elicitation; %s). Retrying will not help: ask the person to run it from a client that can confirm.",
		call.Tool.Name, call.Reason)
	body, err := json.Marshal(map[string]any{"error": map[string]any{"code": ConfirmationRequiredCode, "message": msg}}, json.Deterministic(true))
	if err != nil {
		return Decision{}, err
	}
	return Decision{Result: &CallToolResult{Content: []Content{call.Request.JSONText(body)}, IsError: true}}, nil
}

// Confirmation is the person's confirmation of the destructive call a
// handler is running, in its context ([ConfirmationFrom]). A product that
// can consume Nonce in the same database transaction as the operation
// declares [Tool.ConsumesConfirmation] and does so: inserting the nonce is
// consuming it, a unique violation means it was used, and then the
// transaction must roll back and Replayed be called.
type Confirmation struct {
	// Nonce is unique to the confirmation.
	Nonce string
	// Expires is when the state carrying it stops opening: a record of the
	// nonce may be dropped after it.
	Expires time.Time
	// Message is what the person confirmed.
	Message string

	outcome atomic.Int32
}

const (
	confirmPending int32 = iota
	confirmSpent
	confirmReplayed
)

// Spent tells the server the handler consumed the nonce (its transaction
// committed). Optional: a nonce the handler did not report is consumed
// after it returns.
func (c *Confirmation) Spent() { c.outcome.CompareAndSwap(confirmPending, confirmSpent) }

// Replayed tells the server the nonce was already used, so nothing ran: the
// call answers -32602 whatever the handler returned.
func (c *Confirmation) Replayed() { c.outcome.Store(confirmReplayed) }

type confirmationKey struct{}

// ConfirmationFrom returns the confirmation of the call being run, or nil
// when there is none (a call that is not destructive, or a request that did
// not come through an MCP endpoint).
func ConfirmationFrom(ctx context.Context) *Confirmation {
	c, _ := ctx.Value(confirmationKey{}).(*Confirmation)
	return c
}

// WithConfirmation returns ctx carrying c, for tests of handlers that
// consume confirmations.
func WithConfirmation(ctx context.Context, c *Confirmation) context.Context {
	return context.WithValue(ctx, confirmationKey{}, c)
}

// MemoryNonceStore is a [NonceStore] in this process's memory: right for a
// single process and for tests, wrong across replicas.
type MemoryNonceStore struct {
	mu   sync.Mutex
	used map[string]time.Time
	now  func() time.Time
}

// NewMemoryNonceStore returns an empty store; now replaces the clock (nil
// is time.Now).
func NewMemoryNonceStore(now func() time.Time) *MemoryNonceStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryNonceStore{used: map[string]time.Time{}, now: now}
}

// Consume implements NonceStore.
func (m *MemoryNonceStore) Consume(_ context.Context, nonce string, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.used[nonce]; ok {
		return ErrNonceUsed
	}
	if len(m.used) >= 1024 {
		now := m.now()
		for k, exp := range m.used {
			if !exp.After(now) {
				delete(m.used, k)
			}
		}
	}
	m.used[nonce] = expires
	return nil
}

// confirmData marks the sealed data of a confirmation state; the message
// asked follows it, so a decline or a re-prompt need not look it up again.
const confirmData = "mcp/confirm\x00"

// confirmSchema is the form: one boolean the person must tick.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		ConfirmKey: map[string]any{"type": "boolean", "title": "Yes, do it", "default": false},
	},
	"required": []any{ConfirmKey},
}

// needsConfirmation reports whether a call of t goes through confirmation.
func (c *call) needsConfirmation(t *compiledTool) bool {
	return !c.h.opts.Confirm.Disabled && !t.def.ConfirmsItself && t.def.IsDestructive()
}

// confirmThenRun is tools/call for a destructive tool.
func (c *call) confirmThenRun(t *compiledTool, req *CallToolRequest, args jsontext.Value) (*result, *Error) {
	if c.era != EraModern || !c.caps.ElicitForm() {
		c.observeConfirmation("unconfirmable")
		return c.unconfirmable(t, req, args)
	}
	var message string
	if req.State != nil {
		if m, ok := strings.CutPrefix(string(req.State.Data), confirmData); ok {
			message = m
			if resp, answered := req.InputResponses[ConfirmKey]; answered {
				return c.confirmed(t, req, args, message, resp)
			}
			// Asked again: the new state replaces this one, which is spent
			// so that the two cannot both be accepted.
			if e := c.consume(&Confirmation{Nonce: req.State.Nonce, Expires: req.State.Expires}); e != nil {
				return nil, e
			}
		}
	}
	if message == "" {
		m, res, err := c.describe(t, req)
		if err != nil {
			return nil, c.handlerError(err)
		}
		if res != nil {
			return c.toolResult(res, req.Name, args)
		}
		message = m
	}
	c.observeConfirmation("asked")
	return c.inputRequired(&InputRequired{
		Requests: map[string]InputRequest{ConfirmKey: ElicitForm(message, confirmSchema)},
		Data:     []byte(confirmData + message),
	}, req.Name, args)
}

// confirmed handles the answer to the confirmation form.
func (c *call) confirmed(t *compiledTool, req *CallToolRequest, args jsontext.Value, message string, resp InputResponse) (*result, *Error) {
	answer, err := resp.Elicit()
	if err != nil {
		return nil, InvalidParams("inputResponses[%q]: %v", ConfirmKey, err)
	}
	if answer.Action != "accept" || answer.Content[ConfirmKey] != true {
		why := "the person declined"
		switch {
		case answer.Action == "cancel":
			why = "the person cancelled"
		case answer.Action == "accept":
			why = "the person did not tick the confirmation"
		}
		c.observeConfirmation("declined")
		// The state is spent either way: a declined confirmation cannot be
		// turned into an accepted one later.
		err := c.nonces().Consume(c.ctx, req.State.Nonce, req.State.Expires)
		switch {
		case errors.Is(err, ErrNonceUsed):
			return nil, errConfirmationUsed()
		case err != nil:
			c.h.log.ErrorContext(c.ctx, "mcp: consuming a declined confirmation", "tool", req.Name, "error", err)
		}
		return c.toolResult(ErrorResult(fmt.Sprintf("Nothing was done: %s. They were asked: %s", why, message)), req.Name, args)
	}
	c.observeConfirmation("accepted")
	conf := &Confirmation{Nonce: req.State.Nonce, Expires: req.State.Expires, Message: message}
	if !t.def.ConsumesConfirmation {
		if e := c.consume(conf); e != nil {
			return nil, e
		}
		conf.outcome.Store(confirmSpent)
	}
	ctx := c.ctx
	c.ctx = WithConfirmation(ctx, conf)
	res, err := t.def.Handler(c.ctx, req)
	c.ctx = ctx
	if conf.outcome.Load() == confirmReplayed {
		return nil, errConfirmationUsed()
	}
	if conf.outcome.Load() == confirmPending {
		// The handler did not say it consumed the nonce (it failed before
		// its transaction, say): consume it now so the state cannot run
		// anything later. ErrNonceUsed here is the handler's own use.
		if err := c.nonces().Consume(c.ctx, conf.Nonce, conf.Expires); err != nil && !errors.Is(err, ErrNonceUsed) {
			c.h.log.ErrorContext(c.ctx, "mcp: consuming a confirmation after the tool ran", "tool", req.Name, "error", err)
		}
	}
	return c.finish(t, req, args, res, err)
}

// consume records the confirmation's nonce before the tool runs.
func (c *call) consume(conf *Confirmation) *Error {
	err := c.nonces().Consume(c.ctx, conf.Nonce, conf.Expires)
	switch {
	case errors.Is(err, ErrNonceUsed):
		return errConfirmationUsed()
	case err != nil:
		return c.handlerError(fmt.Errorf("consuming a confirmation: %w", err))
	}
	return nil
}

func errConfirmationUsed() *Error {
	return InvalidParams("Invalid requestState: this confirmation was already used, so nothing was run again")
}

// unconfirmable hands a call the client cannot confirm to the policy.
func (c *call) unconfirmable(t *compiledTool, req *CallToolRequest, args jsontext.Value) (*result, *Error) {
	reason := fmt.Sprintf("it speaks MCP %s", c.version)
	if c.era == EraModern {
		if c.caps.ElicitURL() {
			reason = "it declared URL elicitation only, not form"
		} else {
			reason = "it did not declare form elicitation"
		}
	}
	policy := c.h.opts.Confirm.Unconfirmable
	if policy == nil {
		policy = refuse{}
	}
	d, err := policy.Unconfirmable(c.ctx, &UnconfirmableCall{
		Request: req, Tool: &t.def, Principal: c.h.auth.Principal(c.ctx), Reason: reason,
		describe: func() (string, *CallToolResult, error) { return c.describe(t, req) },
	})
	if err != nil {
		return nil, c.handlerError(err)
	}
	if d.Run {
		res, err := t.def.Handler(c.ctx, req)
		return c.finish(t, req, args, res, err)
	}
	if d.Result == nil {
		return nil, c.handlerError(fmt.Errorf("confirmation policy answered nothing for %s", req.Name))
	}
	return c.toolResult(d.Result, req.Name, args)
}

// describe asks the tool what the call will do.
func (c *call) describe(t *compiledTool, req *CallToolRequest) (string, *CallToolResult, error) {
	if t.def.Confirm != nil {
		msg, res, err := t.def.Confirm(c.ctx, req)
		if err != nil || res != nil {
			return "", res, err
		}
		if msg = strings.TrimSpace(msg); msg != "" {
			return msg, nil, nil
		}
	}
	return genericConfirmMessage(&t.def, req.Arguments), nil, nil
}

// genericConfirmMessage names the tool and its arguments.
func genericConfirmMessage(t *Tool, args []byte) string {
	name := t.Name
	if t.Title != "" {
		name = fmt.Sprintf("%q (%s)", t.Title, t.Name)
	}
	shown := jsontext.Value(args).Clone()
	if shown.Canonicalize() != nil {
		shown = jsontext.Value(args)
	}
	text := string(shown)
	if len(text) > 500 {
		cut := 500
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return fmt.Sprintf("Run %s with arguments %s? It is marked destructive: it may delete, change or send something, and cannot be undone.", name, text)
}

// finish writes what the handler of a destructive tool returned.
func (c *call) finish(t *compiledTool, req *CallToolRequest, args jsontext.Value, res *CallToolResult, err error) (*result, *Error) {
	if err != nil {
		return nil, c.handlerError(err)
	}
	if res == nil {
		return nil, c.handlerError(fmt.Errorf("tool %s returned no result", t.def.Name))
	}
	return c.toolResult(res, req.Name, args)
}

func (c *call) nonces() NonceStore {
	return c.h.opts.Confirm.Nonces
}

// observeConfirmation records a confirmation outcome for metrics.
func (c *call) observeConfirmation(outcome string) {
	if obs := ObservationFrom(c.r.Context()); obs != nil {
		obs.Confirmation = outcome
	}
}
