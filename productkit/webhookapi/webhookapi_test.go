package webhookapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/webhookapi"
	"github.com/kobana/kobana-mcp/rest"
)

// widgets is a small product with nothing but the webhook API, its
// tenant the organization: what the tests below drive.
func widgets(o webhookapi.Options) *productkit.Spec {
	return &productkit.Spec{
		Key: "widgets", Name: "widgets", Title: "Widgets", Version: "1.0.0", DefaultAddr: "127.0.0.1:0", APIBase: "/api/v1",
		Build: func(b *productkit.Builder) error {
			api := b.API(rest.Config{})
			svc := webhooks.New(b.Deps.DB, b.Deps.Jobs, webhooks.Config{Product: "widgets",
				AllowPrivateTargets: b.Deps.Webhooks.AllowPrivateTargets, Retries: b.Deps.Webhooks.Retries})
			o.Product = "Widgets"
			o.Scope = "widgets.webhooks"
			o.Events = []string{"widget.created", "widget.deleted", webhooks.TestEventSlug}
			o.Tenancy = restkit.OrganizationTenancy(accounts.New(b.Deps.DB, accounts.Options{}))
			webhookapi.Register(api, svc, o)
			return nil
		},
	}
}

func start(t *testing.T, db *store.DB, o webhookapi.Options, allowPrivate bool) *producttest.Env {
	return producttest.Start(t, db, widgets(o), producttest.Options{Webhooks: productkit.WebhookSettings{
		AllowPrivateTargets: allowPrivate, Retries: []time.Duration{10 * time.Millisecond}}})
}

// fieldError reports whether an error body is a validation error naming
// field.
func fieldError(body, field string) bool {
	var out struct {
		Error struct {
			Code    string
			Details []struct{ Field, Message string }
		}
	}
	_ = json.Unmarshal([]byte(body), &out)
	if out.Error.Code != "validation_failed" {
		return false
	}
	for _, d := range out.Error.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

// TestValidation: bad input answers 422 naming the field, whatever the
// product; subscriptions are checked against the product's own catalog.
func TestValidation(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := start(t, db, webhookapi.Options{}, true)
		base := func(kv ...any) map[string]any {
			m := map[string]any{"label": "L", "url": "https://ok.example/h", "subscribed_events": []string{"*"}}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] == nil {
					delete(m, kv[i].(string))
					continue
				}
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		for name, c := range map[string]struct {
			body   map[string]any
			fields []string
		}{
			"ftp URL":              {base("url", "ftp://files.example/x"), []string{"url"}},
			"relative URL":         {base("url", "/hooks"), []string{"url"}},
			"URL with credentials": {base("url", "https://u:p@x.example/h"), []string{"url"}},
			"another product's":    {base("subscribed_events", []string{"widget.created", "email.received"}), []string{"subscribed_events.1"}},
			"unknown prefix":       {base("subscribed_events", []string{"email.*"}), []string{"subscribed_events.0"}},
			"no events":            {base("subscribed_events", []string{}), []string{"subscribed_events"}},
			"events missing":       {base("subscribed_events", nil), []string{"subscribed_events"}},
			"basic without creds":  {base("auth", "basic"), []string{"password", "username"}},
			"basic without pw":     {base("auth", "basic", "username", "u"), []string{"password"}},
			"basic with a colon":   {base("auth", "basic", "username", "u:x", "password", "p"), []string{"username"}},
			"bearer without token": {base("auth", "bearer"), []string{"token"}},
			"header reserved":      {base("auth", "header", "header_name", "X-Kobana-Signature", "header_value", "v"), []string{"header_name"}},
			"header bad name":      {base("auth", "header", "header_name", "X Key", "header_value", "v"), []string{"header_name"}},
			"creds with none":      {base("token", "t"), []string{"token"}},
			"line break":           {base("auth", "bearer", "token", "a\r\nX: y"), []string{""}},
			"bad auth":             {base("auth", "digest"), []string{"auth"}},
			"bad status":           {base("status", "paused"), []string{"status"}},
			"no label":             {base("label", nil), []string{"label"}},
			"unknown field":        {base("secret", "mine"), []string{"secret"}},
			"no scope field here":  {base("inbox_id", "x"), []string{"inbox_id"}},
		} {
			code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", c.body)
			if code != 422 {
				t.Errorf("%s: %d %s", name, code, body)
				continue
			}
			for _, f := range c.fields {
				if !fieldError(body, f) {
					t.Errorf("%s: no detail for %q: %s", name, f, body)
				}
			}
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks?status=paused", nil); code != 422 || !fieldError(body, "status") {
			t.Errorf("list status: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks", nil); code != 200 || !strings.Contains(body, `"data":[]`) {
			t.Errorf("invalid requests created webhooks: %s", body)
		}
		// Wildcards over the catalog are fine.
		if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", base("subscribed_events", []string{"widget.*", "webhook.test"})); code != 201 {
			t.Errorf("wildcard: %d %s", code, body)
		}
	})
}

// TestPrivateTargetRefused: with the default configuration a webhook
// cannot point at this machine or a private network.
func TestPrivateTargetRefused(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := start(t, db, webhookapi.Options{}, false)
		for _, u := range []string{"https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://localhost/hook", "http://erp.example/hook"} {
			code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "L", "url": u, "subscribed_events": []string{"*"}})
			if code != 422 || !fieldError(body, "url") {
				t.Errorf("%s: %d %s", u, code, body)
			}
		}
		code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "L", "url": "https://erp.example/hook", "subscribed_events": []string{"*"}})
		var w struct{ Data struct{ ID string } }
		if code != 201 || json.Unmarshal([]byte(body), &w) != nil {
			t.Fatalf("public target: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/webhooks/"+w.Data.ID, map[string]any{"url": "https://192.168.0.1/h"}); code != 422 || !fieldError(body, "url") {
			t.Errorf("update to a private address: %d %s", code, body)
		}
	})
}

// TestProductsKeepTheirOwnWebhooks: the API sees only its own product's
// webhooks and events, in the same organization and workspace: another
// product's webhook is neither listed nor found, nor does an event of its
// own product reach it.
func TestProductsKeepTheirOwnWebhooks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := start(t, db, webhookapi.Options{}, true)
		rcv := producttest.NewReceiver(t)
		other := webhooks.New(db, nil, webhooks.Config{Product: "gadgets", AllowPrivateTargets: true})
		theirs, _, err := other.Create(ctx, webhooks.NewWebhook{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, ExternalID: "shared",
			Label: "Gadgets", URL: rcv.URL, SubscribedEvents: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "Widgets", "external_id": "shared", "url": rcv.URL, "subscribed_events": []string{"*"}})
		if code != 201 {
			t.Fatalf("the same external id in another product: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks", nil); code != 200 || strings.Contains(body, theirs.ID) || strings.Count(body, `"external_id":"shared"`) != 1 {
			t.Fatalf("list: %d %s", code, body)
		}
		for _, path := range []string{"/api/v1/webhooks/" + theirs.ID, "/api/v1/webhooks/" + theirs.ID + "/deliveries"} {
			if code, body := e.Do(e.Owner, "GET", path, nil); code != 404 {
				t.Errorf("GET %s: %d %s", path, code, body)
			}
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks/"+theirs.ID+"/test", nil); code != 404 {
			t.Errorf("test of another product's webhook: %d %s", code, body)
		}
		// A widgets event fans out to the widgets webhook only.
		mine := webhooks.New(db, nil, webhooks.Config{Product: "widgets"})
		if _, err := mine.Emit(ctx, nil, webhooks.Event{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, Slug: "widget.created"}); err != nil {
			t.Fatal(err)
		}
		if ds, err := other.ListDeliveries(ctx, e.Mine.ID, e.MineWS.ID, theirs.ID, "", 10); err != nil || len(ds) != 0 {
			t.Fatalf("another product's webhook got a delivery: %v %d", err, len(ds))
		}
	})
}

// tool is one tool of the product's catalog, as tools/list shows it.
type tool struct {
	Name        string
	Title       string
	Description string
	InputSchema struct {
		Properties map[string]struct{ Description string }
		Required   []string
	}
	Annotations map[string]any
}

func catalog(t *testing.T, o webhookapi.Options) (map[string]tool, []string) {
	t.Helper()
	l, err := productkit.Catalog(widgets(o))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tool{}
	var names []string
	for _, mt := range l.Catalog.Tools {
		b, _ := json.Marshal(map[string]any{"name": mt.Name, "title": mt.Title, "description": mt.Description, "inputSchema": mt.InputSchema, "annotations": mt.Annotations})
		var tl tool
		if err := json.Unmarshal(b, &tl); err != nil {
			t.Fatal(err)
		}
		out[tl.Name] = tl
		names = append(names, tl.Name)
	}
	return out, names
}

// TestOptionsShapeTheTools: names, paths, list arguments, descriptions
// and annotations follow the options.
func TestOptionsShapeTheTools(t *testing.T) {
	t.Parallel()
	tools, names := catalog(t, webhookapi.Options{Prefix: "w_", ReplayVerb: "retry", Lists: restkit.NumberedList,
		Ops:         []webhookapi.Op{webhookapi.List, webhookapi.Create, webhookapi.Update, webhookapi.RotateSecret, webhookapi.ListDeliveries, webhookapi.Replay},
		Annotations: map[webhookapi.Op]mcp.ToolAnnotations{webhookapi.Create: restkit.Destructive(false), webhookapi.Update: restkit.Destructive(true)}})
	want := []string{"w_webhooks_list", "w_webhooks_create", "w_webhooks_update", "w_webhooks_rotate_secret", "w_webhook_deliveries_list", "w_webhook_deliveries_retry"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", names, want)
	}
	list := tools["w_webhooks_list"]
	if _, ok := list.InputSchema.Properties["cursor"]; ok || list.InputSchema.Properties["per_page"].Description != "How many webhooks per page (1-100, default 25)." ||
		list.InputSchema.Properties["page"].Description == "" || !strings.Contains(list.Description, "numbered pages") || !strings.Contains(list.Description, "organization's webhooks") {
		t.Errorf("numbered list: %+v", list)
	}
	if d := tools["w_webhook_deliveries_list"].InputSchema.Properties["per_page"].Description; d != "How many deliveries per page (1-100, default 25)." {
		t.Errorf("deliveries per_page: %q", d)
	}
	create := tools["w_webhooks_create"]
	if d := create.InputSchema.Properties["subscribed_events"].Description; !strings.Contains(d, "widget.created, widget.deleted, webhook.test") || !strings.Contains(d, "(widget.*)") {
		t.Errorf("the events are not the product's: %q", d)
	}
	if create.Annotations["destructiveHint"] != true || !strings.Contains(create.Description, "Destructive") || !strings.Contains(create.Description, "when rotated") {
		t.Errorf("create: %+v", create)
	}
	if tools["w_webhooks_rotate_secret"].Title != "Rotate a webhook's signing secret" || tools["w_webhook_deliveries_retry"].Title != "Retry a delivery" {
		t.Errorf("verbs: %q %q", tools["w_webhooks_rotate_secret"].Title, tools["w_webhook_deliveries_retry"].Title)
	}
	for name, tl := range tools {
		if tl.Annotations["openWorldHint"] != false {
			t.Errorf("%s: openWorldHint %v", name, tl.Annotations["openWorldHint"])
		}
	}
	// Cursor lists with the limit in meta; the rotate path follows its verb.
	l, err := productkit.Catalog(widgets(webhookapi.Options{RotateVerb: "regenerate", Lists: restkit.CursorListWithLimit}))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, op := range l.API.Operations() {
		paths = append(paths, op.Method+" "+op.Path)
	}
	if p := strings.Join(paths, ","); !strings.Contains(p, "POST /webhooks/{id}/regenerate-secret") || !strings.Contains(p, "POST /webhooks/{id}/deliveries/{delivery_id}/replay") || strings.Contains(p, "system-events") {
		t.Errorf("paths: %s", p)
	}
}

// TestListStyles: the same listing pages by cursor, by cursor with the
// limit in meta, or by number, as the product chose.
func TestListStyles(t *testing.T) {
	t.Parallel()
	for name, style := range map[string]restkit.ListStyle{"cursor": restkit.CursorList, "cursor+limit": restkit.CursorListWithLimit, "numbered": restkit.NumberedList} {
		t.Run(name, func(t *testing.T) { listStyle(t, style) })
	}
}

func listStyle(t *testing.T, style restkit.ListStyle) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := start(t, db, webhookapi.Options{Lists: style}, true)
		for i := 0; i < 3; i++ {
			if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "L", "url": "https://x.example/h", "subscribed_events": []string{"*"}}); code != 201 {
				t.Fatalf("create: %d %s", code, body)
			}
		}
		var page struct {
			Data []struct{ ID string }
			Meta map[string]any
		}
		q := "?limit=2"
		if style == restkit.NumberedList {
			q = "?per_page=2&page=2"
		}
		code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks"+q, nil)
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("style %d: %d %s", style, code, body)
		}
		switch style {
		case restkit.CursorList:
			if len(page.Data) != 2 || page.Meta["next_cursor"] == nil || len(page.Meta) != 1 {
				t.Errorf("cursor: %s", body)
			}
		case restkit.CursorListWithLimit:
			if len(page.Data) != 2 || page.Meta["next_cursor"] == nil || page.Meta["limit"] != 2.0 {
				t.Errorf("cursor with limit: %s", body)
			}
		case restkit.NumberedList:
			if len(page.Data) != 1 || page.Meta["total"] != 3.0 || page.Meta["page"] != 2.0 || page.Meta["per_page"] != 2.0 || page.Meta["total_pages"] != 2.0 {
				t.Errorf("numbered: %s", body)
			}
			if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks?limit=2", nil); code != 422 || !fieldError(body, "limit") {
				t.Errorf("a numbered list takes no limit: %d %s", code, body)
			}
		}
	})
}
