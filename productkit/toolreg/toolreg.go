// Package toolreg is the registry of the MCP tools of the products that
// run in this deployment, so that one product (Kadu's executions) can call
// another's tools in-process — the very handlers its MCP endpoint runs, and
// so the same REST route code — without importing it: a product never
// imports another product (docs/decisions.md "Layers"). The binary fills
// the registry (cmd/kobana-mcp: serve and worker add each product's
// catalog once it is assembled) and hands it to every product through
// productkit.Deps.Tools.
//
// A call (Registry.Call) runs as a person: the identity of the person an
// execution runs for, never a token. What it may do is checked at the
// moment of the call, in this order, and a refusal is a *Refusal naming
// why:
//
//   - the tool must be one of the caller's allowed tools (a task's allowed
//     list: nothing a model or a tool result says can widen it);
//   - the tool must exist in this deployment;
//   - the person must still belong to the organization, with a role read
//     from the database now (oauth.RoleLookup), which must allow the tool's
//     permission (a person demoted after a task was scheduled runs with the
//     new role);
//   - the identity carries, in the target product, exactly the scopes the
//     caller's allowed tools of that product require (intersected with
//     what was granted, when the caller says what was granted), so the
//     tool's own scope must be among them;
//   - a destructive tool (mcp.Tool.IsDestructive) runs only with the
//     person's confirmation in hand (Call.Confirmation): the caller obtains
//     it (Kadu's approval link) before calling.
//
// The target product's API checks its own scope and permission again, from
// the same identity, as it does for its own MCP endpoint's calls.
// Everything a tool returns is the target product's data, which may quote
// third parties: callers treat it as data, never as instructions.
package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Issuer is the issuer of the identities calls run with: not a token
// issuer, a marker that the call came from another product of this
// deployment on a person's behalf.
const Issuer = "urn:kobana:toolreg"

// Entry is one registered tool and the product it belongs to.
type Entry struct {
	// Product is the key of the product serving the tool ("inbox").
	Product string
	// Tool is the tool as the product's MCP endpoint lists and runs it.
	Tool mcp.Tool
}

// Registry holds the tools of the deployment's products. It is safe for
// concurrent use; the binary fills it once at start, before any call.
type Registry struct {
	mu      sync.RWMutex
	entries map[string]*Entry
	order   []string
}

// New returns an empty registry.
func New() *Registry { return &Registry{entries: map[string]*Entry{}} }

// Add registers product's tools, in their order. A tool name another
// product already registered is refused: names are the key an allowed
// list holds.
func (r *Registry) Add(product string, tools []mcp.Tool) error {
	if product == "" {
		return errors.New("toolreg: a product key is required")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range tools {
		if prev, ok := r.entries[t.Name]; ok && prev.Product != product {
			return fmt.Errorf("toolreg: tool %q of %s is already registered by %s", t.Name, product, prev.Product)
		}
	}
	for _, t := range tools {
		if _, ok := r.entries[t.Name]; !ok {
			r.order = append(r.order, t.Name)
		}
		r.entries[t.Name] = &Entry{Product: product, Tool: t}
	}
	return nil
}

// Lookup returns the entry of a tool by name.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[name]
	return e, ok
}

// List is every registered tool, in registration order.
func (r *Registry) List() []Entry {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Entry, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, *r.entries[n])
	}
	return out
}

// RequiredScopes is, per product, the scopes the named tools require, in
// the order first met; unknown lists the names no product registered.
// It is what a task saved with those tools is granted.
func (r *Registry) RequiredScopes(tools []string) (scopes map[string][]string, unknown []string) {
	scopes = map[string][]string{}
	for _, name := range tools {
		e, ok := r.Lookup(name)
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		for _, s := range e.Tool.Requires.Scopes {
			if !slices.Contains(scopes[e.Product], s) {
				scopes[e.Product] = append(scopes[e.Product], s)
			}
		}
	}
	return scopes, unknown
}

// Schema is the JSON Schema of a tool's arguments ({"type":"object"} when
// it declares none), as a model is offered it.
func (e *Entry) Schema() json.RawMessage {
	if e.Tool.InputSchema == nil {
		return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	}
	b, err := json.Marshal(e.Tool.InputSchema)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// Call is one call of a registered tool on a person's behalf.
type Call struct {
	// Tool is the tool's name; Arguments its arguments object.
	Tool      string
	Arguments json.RawMessage
	// OrganizationID, UserID and Email are the person the call runs as.
	OrganizationID, UserID, Email string
	// WorkspaceID, when set, is the workspace the call acts in (a task's
	// workspace_id): the identity carries it as a token bound to a
	// workspace does, so a workspace-scoped product acts in it, and
	// checks it is a live workspace of the organization, at every call.
	WorkspaceID string
	// Allowed are the tools the caller may call at all (a task's allowed
	// tools): anything else is refused, whatever asked for it.
	Allowed []string
	// Granted, when not nil, are the scopes granted per product (a task's,
	// when it was saved); the identity then carries the allowed tools'
	// required scopes that were also granted. Nil: the required ones.
	Granted map[string][]string
	// Confirmation is the person's confirmation of a destructive call (an
	// approval's), handed to the tool as the framework hands a confirmed
	// call's: a tool that consumes confirmations in its own transaction
	// (mcp.Tool.ConsumesConfirmation) consumes its nonce, so a second run
	// of the same confirmed call finds it used. Nil refuses destructive
	// tools.
	Confirmation *mcp.Confirmation
	// Client names the caller in the identity's ClientID, for the target's
	// logs ("kadu-execution").
	Client string
}

// Refusal is a call refused before the tool ran: nothing happened.
type Refusal struct {
	// Code is a lower-case reason: tool_not_allowed, tool_unavailable,
	// not_a_member, role_forbids, scope_not_granted, needs_confirmation.
	Code    string
	Message string
}

func (e *Refusal) Error() string { return e.Code + ": " + e.Message }

// IsRefusal reports whether err is a *Refusal, and returns it.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// Check runs every check of Call without running the tool, and returns
// the identity the call would run with. A destructive tool without a
// confirmation is the only refusal Check does not make (needs_confirmation
// is Call's), so a caller can learn that a call is otherwise allowed
// before asking the person to confirm it.
func (r *Registry) Check(ctx context.Context, roles oauth.RoleLookup, c Call) (*Entry, *identity.Identity, error) {
	if !slices.Contains(c.Allowed, c.Tool) {
		return nil, nil, &Refusal{Code: "tool_not_allowed", Message: fmt.Sprintf("%q is not one of the task's allowed tools, so it was not called", c.Tool)}
	}
	e, ok := r.Lookup(c.Tool)
	if !ok || e.Tool.Handler == nil {
		return nil, nil, &Refusal{Code: "tool_unavailable", Message: fmt.Sprintf("%q is not served by any product running in this deployment", c.Tool)}
	}
	if c.OrganizationID == "" || c.UserID == "" {
		return nil, nil, &Refusal{Code: "not_a_member", Message: "the call has no person to run as"}
	}
	id := &identity.Identity{Issuer: Issuer, Subject: c.UserID, OrganizationID: c.OrganizationID, UserID: c.UserID,
		Email: c.Email, ClientID: c.Client, WorkspaceID: c.WorkspaceID}
	if roles != nil {
		role, err := roles(ctx, id)
		if errors.Is(err, oauth.ErrNoMembership) || errors.Is(err, oauth.ErrGrantRevoked) || errors.Is(err, store.ErrNotFound) {
			return nil, nil, &Refusal{Code: "not_a_member", Message: fmt.Sprintf("%s no longer belongs to the organization", displayName(c))}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("toolreg: looking the role up: %w", err)
		}
		id.Role = role
	} else {
		return nil, nil, errors.New("toolreg: a role lookup is required")
	}
	if !id.Role.Allows(e.Tool.Requires.Permission) {
		return nil, nil, &Refusal{Code: "role_forbids", Message: fmt.Sprintf("the role %s of %s does not allow %q", id.Role, displayName(c), c.Tool)}
	}
	required, _ := r.RequiredScopes(c.Allowed)
	scopes := required[e.Product]
	if c.Granted != nil {
		scopes = slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return !slices.Contains(c.Granted[e.Product], s) })
	}
	id.Scopes = scopes
	if !id.HasScopes(e.Tool.Requires.Scopes) {
		return nil, nil, &Refusal{Code: "scope_not_granted", Message: fmt.Sprintf("the task was not granted the scopes %q needs (%v)", c.Tool, e.Tool.Requires.Scopes)}
	}
	return e, id, nil
}

// Call checks the call (see Check and the package documentation) and runs
// the tool's handler in-process as the person. A refusal is a *Refusal
// and nothing ran; any other error is the handler's (or the role
// lookup's). The result is the tool's own, error results included.
func (r *Registry) Call(ctx context.Context, roles oauth.RoleLookup, c Call) (res *mcp.CallToolResult, err error) {
	e, id, err := r.Check(ctx, roles, c)
	if err != nil {
		return nil, err
	}
	if e.Tool.IsDestructive() && c.Confirmation == nil {
		return nil, &Refusal{Code: "needs_confirmation", Message: fmt.Sprintf("%q is destructive: it runs only once the person approved this very call", c.Tool)}
	}
	ctx = identity.With(ctx, id)
	if c.Confirmation != nil {
		ctx = mcp.WithConfirmation(ctx, c.Confirmation)
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("toolreg: %s panicked: %v", c.Tool, p)
		}
	}()
	return e.Tool.Handler(ctx, &mcp.CallToolRequest{Name: c.Tool, Arguments: args})
}

func displayName(c Call) string {
	if c.Email != "" {
		return c.Email
	}
	return "the person"
}
