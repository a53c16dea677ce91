package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/client"
)

// fixture is an endpoint of package mcp with a read tool whose argument
// travels in a header too, a destructive tool that counts its runs, a
// resource whose URI is not plain header text, and a prompt; one entry a
// page, so every list pages.
type fixture struct {
	url   string
	drops atomic.Int32
}

func newFixture(t *testing.T, auth mcp.Authorizer) *fixture {
	t.Helper()
	f := &fixture{}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	text := "Olá"
	h := mcp.MustNewHandler(mcp.Options{Name: "fixture", Version: "1.0.0", PageSize: 1, Authorizer: auth}, mcp.Catalog{
		Tools: []mcp.Tool{{
			Name:  "echo",
			Title: "Echo",
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"region": {Type: "string", Extra: map[string]any{"x-mcp-header": "Region"}},
			}},
			Annotations: ro,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("echo " + string(req.Arguments))}, StructuredContent: map[string]any{"ok": true}}, nil
			},
		}, {
			Name:  "drop",
			Title: "Drop everything",
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"what": {Type: "string"},
			}},
			Confirm: func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
				return "Drop " + string(req.Arguments) + "? This cannot be undone.", nil, nil
			},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				f.drops.Add(1)
				return mcp.TextResult("dropped"), nil
			},
		}},
		Resources: []mcp.Resource{{
			URI: "test://docs/café", Name: "cafe", MimeType: "text/plain",
			Read: func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextResource(req.URI, "text/plain", text)}}, nil
			},
		}, {
			URI: "test://docs/two", Name: "two",
			Read: func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return nil, mcp.ErrResourceNotFound
			},
		}},
		Prompts: []mcp.Prompt{{
			Name: "hello", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}},
			Get: func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("Hello " + req.Arguments["who"])}}}, nil
			},
		}},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// answerer answers every confirmation with action, recording what it saw.
type answerer struct {
	action   string
	messages []string
}

func (a *answerer) Elicit(_ context.Context, key string, e *client.Elicitation) (mcp.ElicitResult, error) {
	a.messages = append(a.messages, key+": "+e.Message)
	if a.action != "accept" {
		return mcp.ElicitResult{Action: a.action}, nil
	}
	content := map[string]any{}
	for _, f := range e.RequestedSchema.Fields() {
		if e.RequestedSchema.Properties[f].Type == "boolean" {
			content[f] = true
		}
	}
	return mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func TestListsReadAndPrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	c := &client.Client{URL: f.url, Info: mcp.Implementation{Name: "test", Version: "1"}}
	ctx := context.Background()
	d, err := c.Discover(ctx)
	if err != nil || d.ServerInfo.Name != "fixture" || d.SupportedVersions[0] != mcp.Version20260728 {
		t.Fatalf("discover: %+v %v", d, err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 2 || tools[0].Name != "echo" || !tools[0].ReadOnly() || !tools[1].Destructive() {
		t.Fatalf("tools over two pages: %+v %v", tools, err)
	}
	// The listed schema puts region in Mcp-Param-Region; the server
	// refuses the call when the header is missing.
	res, err := c.CallTool(ctx, "echo", map[string]any{"region": "sa-east-1"})
	if err != nil || res.IsError || res.Content[0].Text != `echo {"region":"sa-east-1"}` || string(res.StructuredContent) != `{"ok":true}` {
		t.Fatalf("echo: %+v %v", res, err)
	}
	bare := &client.Client{URL: f.url}
	var rpc *client.RPCError
	if _, err := bare.CallTool(ctx, "echo", map[string]any{"region": "x"}); !errors.As(err, &rpc) || rpc.Code != -32020 || rpc.Status != 400 {
		t.Fatalf("a call without the tool's schema sends no Mcp-Param header, and the server says so: %v", err)
	}
	resources, err := c.ListResources(ctx)
	if err != nil || len(resources) != 2 {
		t.Fatalf("resources: %+v %v", resources, err)
	}
	// Mcp-Name carries a URI that is not ASCII as base64.
	read, err := c.ReadResource(ctx, "test://docs/café")
	if err != nil || *read.Contents[0].Text != "Olá" {
		t.Fatalf("read: %+v %v", read, err)
	}
	if _, err := c.ReadResource(ctx, "test://docs/two"); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Fatalf("missing resource: %v", err)
	}
	p, err := c.GetPrompt(ctx, "hello", map[string]string{"who": "Ana"})
	if err != nil || p.Messages[0].Content.Text != "Hello Ana" {
		t.Fatalf("prompt: %+v %v", p, err)
	}
}

func TestConfirmation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("accepted", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		a := &answerer{action: "accept"}
		c := &client.Client{URL: f.url, Answer: a}
		res, err := c.CallTool(ctx, "drop", map[string]any{"what": "all"})
		if err != nil || res.IsError || res.Content[0].Text != "dropped" || f.drops.Load() != 1 {
			t.Fatalf("accepted: %+v %v, ran %d times", res, err, f.drops.Load())
		}
		if len(a.messages) != 1 || a.messages[0] != `confirm: Drop {"what":"all"}? This cannot be undone.` {
			t.Fatalf("asked %q", a.messages)
		}
	})
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		c := &client.Client{URL: f.url, Answer: &answerer{action: "decline"}}
		res, err := c.CallTool(ctx, "drop", nil)
		if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].Text, "Nothing was done: the person declined") || f.drops.Load() != 0 {
			t.Fatalf("declined: %+v %v, ran %d times", res, err, f.drops.Load())
		}
	})
	t.Run("no answerer", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		c := &client.Client{URL: f.url}
		res, err := c.CallTool(ctx, "drop", nil)
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, mcp.ConfirmationRequiredCode) || f.drops.Load() != 0 {
			t.Fatalf("a client without form elicitation is refused: %+v %v", res, err)
		}
	})
}

// bearer lets in one token and challenges everything else, as an OAuth
// resource server does.
type bearer struct{}

func (bearer) Access(context.Context, mcp.Requirement) mcp.Access { return mcp.Allowed }
func (bearer) InsufficientScope(w http.ResponseWriter, _ *http.Request, _ mcp.Requirement) {
	w.WriteHeader(http.StatusForbidden)
}
func (bearer) Principal(context.Context) string { return "good" }

func (bearer) Authenticate(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	if r.Header.Get("Authorization") == "Bearer good" {
		return r.Context(), true
	}
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_token", "error_description": "issued for another resource"})
	return nil, false
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bearer{})
	ctx := context.Background()
	if _, err := (&client.Client{URL: f.url, Token: "good"}).ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := (&client.Client{URL: f.url, Token: "bad"}).ListTools(ctx)
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != 401 || he.Challenge != `Bearer error="invalid_token"` ||
		err.Error() != "HTTP 401 Unauthorized: invalid_token: issued for another resource" {
		t.Fatalf("refused token: %v", err)
	}
}
