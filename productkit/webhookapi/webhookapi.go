// Package webhookapi is the webhook API every product offers, registered
// by one call: webhooks (list, get, create, update, delete, test,
// signing-secret rotation), their deliveries (list, get, replay or retry)
// and, optionally, the system events behind them — all on
// platform/webhooks, whose Service keeps each product's rows in its own
// namespace (webhooks.Config.Product). What differs between products is an
// Options value: the tool names, the OAuth scope, the event catalog, how
// the caller's tenant is resolved, an optional scope field (the Inbox's
// inbox_id), the list style, the annotations, and the words the
// descriptions use (docs/decisions.md "The webhook API").
package webhookapi

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Op names one operation of the webhook API.
type Op string

// The operations, in the order Register declares them.
const (
	List           Op = "list"
	Get            Op = "get"
	Create         Op = "create"
	Update         Op = "update"
	Delete         Op = "delete"
	Test           Op = "test"
	RotateSecret   Op = "rotate_secret"
	ListDeliveries Op = "deliveries_list"
	GetDelivery    Op = "deliveries_get"
	Replay         Op = "deliveries_replay"
	ListEvents     Op = "events_list"
	GetEvent       Op = "events_get"
)

var allOps = []Op{List, Get, Create, Update, Delete, Test, RotateSecret, ListDeliveries, GetDelivery, Replay, ListEvents, GetEvent}

// Options are what one product's webhook API is made of.
type Options struct {
	// Product is the product's name for people, in the test event's
	// message ("Kobana Autonomous Inbox").
	Product string
	// Prefix starts every tool and operation name: "" gives webhooks_list,
	// webhook_deliveries_list, system_events_list…; "dunning_" gives
	// dunning_webhooks_list…
	Prefix string
	// Names overrides the name of any operation.
	Names map[Op]string
	// Ops are the operations offered (nil: every webhook and delivery
	// operation, and the system events ones when SystemEvents is set).
	Ops []Op
	// RotateVerb names the signing-secret rotation in its path
	// (/webhooks/{id}/<verb>-secret), title and messages: "rotate" (the
	// default) or "regenerate". The tool keeps its name, <prefix>
	// webhooks_rotate_secret.
	RotateVerb string
	// RotationGrace is how long a rotated-out secret keeps signing beside
	// the new one (the product's webhooks.Config.RotationGrace): the
	// rotation's description and confirmation say so. Zero: the old secret
	// stops at once.
	RotationGrace time.Duration
	// ReplayVerb names sending a delivery again, in its path
	// (/webhooks/{id}/deliveries/{delivery_id}/<verb>), its tool
	// (<prefix>webhook_deliveries_<verb>) and title: "replay" (the
	// default) or "retry".
	ReplayVerb string
	// Scope is the OAuth scope of every webhook and delivery operation
	// ("inbox.webhooks"). Reading needs the viewer role; every change an
	// admin (a webhook decides where the organization's data goes).
	Scope string
	// Events are the slugs a webhook may subscribe to (besides "*" and
	// "prefix.*" over them): the events the product emits, and
	// webhooks.TestEventSlug.
	Events []string
	// Tenancy resolves the caller's tenant.
	Tenancy restkit.Tenancy
	// TenantNoun names the tenant in descriptions and messages
	// ("workspace"; default "organization").
	TenantNoun string
	// ShowWorkspace adds workspace_id to webhooks and events as the API
	// shows them (a product whose tenants are workspaces).
	ShowWorkspace bool
	// ScopeField, when set, is the optional field that narrows a webhook
	// to the events of one thing (the Inbox's inbox_id): a filter of the
	// listings, a field of create and update and of the answers.
	ScopeField *Field
	// SystemEvents, when set, offers the system events operations.
	SystemEvents *SystemEvents
	// Lists is how the listings page.
	Lists restkit.ListStyle
	// Annotations override an operation's default annotations: reads
	// read-only; create and update ordinary writes; delete destructive
	// and idempotent; test, rotation and replay destructive and not
	// idempotent. A create or update made destructive asks the person to
	// confirm a message naming the target.
	Annotations map[Op]mcp.ToolAnnotations
	// EventData, when set, adds to the data of a test event what the
	// product's events carry (the tenant's snapshot, say).
	EventData func(ctx context.Context, t restkit.Tenant, data map[string]any) map[string]any
}

// Field is an optional argument that names something of the product's by
// id or external_id.
type Field struct {
	// Name is the argument and answer field ("inbox_id").
	Name string
	// Noun names what it refers to ("inbox", "e-mail").
	Noun string
	// All says what having no such field means ("every inbox").
	All string
	// Resolve turns a reference of the caller's tenant into its id, or
	// answers the error (404 for what the caller cannot see).
	Resolve func(ctx context.Context, t restkit.Tenant, ref string) (string, error)
}

// SystemEvents configure the read-only operations on the events the
// product emitted (what webhooks were sent, or would have been).
type SystemEvents struct {
	// Scope is their OAuth scope ("inbox.system_events").
	Scope string
	// Subject, when set, filters the listing by what an event is about
	// (the Inbox's email_id) and shows it in the answers.
	Subject *Field
}

// api is one Register call.
type api struct {
	o    Options
	svc  *webhooks.Service
	rest *rest.API
	ops  map[Op]bool
	vars map[string]string
	feat map[string]bool
}

// Register declares the product's webhook API on a. It panics on options
// that cannot work (no tenancy, no scope, no events), as rest does on a
// bad declaration: both are mistakes of the program, not of a request.
func Register(a *rest.API, svc *webhooks.Service, o Options) {
	if o.Tenancy == nil || o.Scope == "" || len(o.Events) == 0 || svc == nil {
		panic("webhookapi: Options need Tenancy, Scope and Events, and a webhooks.Service")
	}
	if o.TenantNoun == "" {
		o.TenantNoun = "organization"
	}
	if o.RotateVerb == "" {
		o.RotateVerb = "rotate"
	}
	if o.ReplayVerb == "" {
		o.ReplayVerb = "replay"
	}
	x := &api{o: o, svc: svc, rest: a, ops: map[Op]bool{}}
	ops := o.Ops
	if ops == nil {
		ops = []Op{List, Get, Create, Update, Delete, Test, RotateSecret, ListDeliveries, GetDelivery, Replay}
		if o.SystemEvents != nil {
			ops = append(ops, ListEvents, GetEvent)
		}
	}
	for _, op := range ops {
		x.ops[op] = true
	}
	if (x.ops[ListEvents] || x.ops[GetEvent]) && o.SystemEvents == nil {
		panic("webhookapi: the system events operations need Options.SystemEvents")
	}
	if x.ops[ListEvents] && o.Lists == restkit.NumberedList {
		panic("webhookapi: system events page by cursor only")
	}
	x.vars = map[string]string{
		"tenant": o.TenantNoun,
		"events": strings.Join(o.Events, ", "),
		"prefix": examplePrefix(o.Events),
	}
	x.feat = map[string]bool{"cursor": o.Lists != restkit.NumberedList, "numbered": o.Lists == restkit.NumberedList}
	if f := o.ScopeField; f != nil {
		x.feat["scope"] = true
		x.vars["scope"], x.vars["scope.noun"], x.vars["scope.all"] = f.Name, f.Noun, f.All
	}
	if e := o.SystemEvents; e != nil && e.Subject != nil {
		x.feat["subject"] = true
		x.vars["subject"], x.vars["subject.noun"] = e.Subject.Name, e.Subject.Noun
	}
	x.registerWebhooks()
	x.registerDeliveries()
	x.registerEvents()
}

// name is the tool and operation name of op.
func (x *api) name(op Op) string {
	if n, ok := x.o.Names[op]; ok {
		return n
	}
	switch op {
	case ListDeliveries, GetDelivery:
		return x.o.Prefix + "webhook_" + string(op)
	case Replay:
		return x.o.Prefix + "webhook_deliveries_" + x.o.ReplayVerb
	case ListEvents, GetEvent:
		return x.o.Prefix + "system_" + string(op)
	}
	return x.o.Prefix + "webhooks_" + string(op)
}

// annotations are op's hints: the product's override, else the default.
func (x *api) annotations(op Op) mcp.ToolAnnotations {
	if a, ok := x.o.Annotations[op]; ok {
		return a
	}
	switch op {
	case Create:
		return restkit.Write(false)
	case Update:
		return restkit.Write(true)
	case Delete:
		return restkit.Destructive(true)
	case Test, RotateSecret, Replay:
		return restkit.Destructive(false)
	}
	return restkit.ReadOnly()
}

// destructive reports whether op's tool is confirmed.
func (x *api) destructive(op Op) bool {
	a := x.annotations(op)
	return a.DestructiveHint != nil && *a.DestructiveHint
}

func (x *api) read() mcp.Requirement {
	return mcp.Requirement{Scopes: []string{x.o.Scope}, Permission: identity.PermRead}
}

func (x *api) manage() mcp.Requirement {
	return mcp.Requirement{Scopes: []string{x.o.Scope}, Permission: identity.PermManage}
}

// declare registers op (when offered) with the input In, its words
// filled in; describe (nil for none) makes it a confirmed operation.
func declare[In any](x *api, op Op, ro rest.Operation, items string, describe func(context.Context, *In) (string, error), fn func(context.Context, *In) (*rest.Response, error)) {
	if !x.ops[op] {
		return
	}
	vars := x.vars
	if items != "" {
		vars = merge(vars, map[string]string{"items": items})
	}
	typ := wireType(reflect.TypeFor[In](), vars, x.feat)
	ro.ID, ro.Annotations = x.name(op), x.annotations(op)
	var d func(context.Context, any) (string, error)
	if describe != nil {
		d = func(ctx context.Context, v any) (string, error) {
			in := new(In)
			fill(in, v)
			return describe(ctx, in)
		}
	}
	rest.HandleType(x.rest, ro, typ, d, func(ctx context.Context, v any) (*rest.Response, error) {
		in := new(In)
		fill(in, v)
		return fn(ctx, in)
	})
	// The closure above is the same adapter for every operation; the
	// reference names fn, the operation's own code.
	x.rest.SetImplementation(ro.ID, fn)
}

// merge is a copy of a with b's entries over it.
func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// examplePrefix is the wildcard the descriptions show: the first event's
// slug without its last word ("email.*" for email.received).
func examplePrefix(events []string) string {
	for _, e := range events {
		if i := strings.LastIndexByte(e, '.'); i > 0 && e != webhooks.TestEventSlug {
			return e[:i] + ".*"
		}
	}
	return "*"
}

// and joins words as a sentence lists them: "a", "a and b", "a, b and c".
func and(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// capital is s with its first letter upper-cased.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// paging is how a list's description says it pages.
func (x *api) paging() string {
	if x.o.Lists == restkit.NumberedList {
		return "with numbered pages (page, per_page)"
	}
	return "with cursor pagination"
}

// known reports whether ev is a slug of the catalog.
func (x *api) known(ev string) bool { return slices.Contains(x.o.Events, ev) }

// OrganizationData is an Options.EventData for a product whose tenant is
// the organization: the test event's data carries it ({id, name}), so a
// receiver serving several organizations routes a delivery without
// calling back. A lookup that fails leaves it out rather than refuse the
// test.
func OrganizationData(acc *accounts.Store) func(context.Context, restkit.Tenant, map[string]any) map[string]any {
	return func(ctx context.Context, t restkit.Tenant, data map[string]any) map[string]any {
		if org, err := acc.GetOrganization(ctx, t.OrgID); err == nil {
			data["organization"] = map[string]any{"id": org.ID, "name": org.Name}
		}
		return data
	}
}
