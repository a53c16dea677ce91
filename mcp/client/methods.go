package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kobana/kobana-mcp/mcp"
)

// Discover asks the server what it speaks and offers (server/discover).
func (c *Client) Discover(ctx context.Context) (*DiscoverResult, error) {
	raw, err := c.request(ctx, "server/discover", map[string]any{}, nil)
	if err != nil {
		return nil, err
	}
	var out struct {
		DiscoverResult
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	if si, ok := out.Meta[mcp.MetaServerInfo]; ok {
		_ = json.Unmarshal(si, &out.ServerInfo)
	}
	return &out.DiscoverResult, nil
}

// list reads every page of a list method into one slice.
func list[T any](ctx context.Context, c *Client, method, member string) ([]T, error) {
	var all []T
	cursor := ""
	for page := 0; page < 1000; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.request(ctx, method, params, nil)
		if err != nil {
			return nil, err
		}
		var pageOf map[string]json.RawMessage
		if err := json.Unmarshal(raw, &pageOf); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var items []T
		if err := json.Unmarshal(pageOf[member], &items); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", method, member, err)
		}
		all = append(all, items...)
		cursor = ""
		if next, ok := pageOf["nextCursor"]; ok {
			_ = json.Unmarshal(next, &cursor)
		}
		if cursor == "" {
			return all, nil
		}
	}
	return nil, fmt.Errorf("%s: more than 1000 pages", method)
}

// ListTools lists every tool, and remembers them for CallTool.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	tools, err := list[Tool](ctx, c, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.tools = make(map[string]*Tool, len(tools))
	for i := range tools {
		c.tools[tools[i].Name] = &tools[i]
	}
	c.mu.Unlock()
	return tools, nil
}

// CallTool runs a tool to its final result, answering any confirmation
// or question on the way through Answer. args is the arguments object (nil
// is {}). A tool error is a result with IsError, not an error. When the
// tool was listed first, the arguments its schema mirrors in headers
// (x-mcp-header) are sent there too.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (*CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	headers := nameHeader(name)
	c.mu.Lock()
	t := c.tools[name]
	c.mu.Unlock()
	if t != nil {
		paramHeaders(headers, t.InputSchema, args)
	}
	raw, err := c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, headers)
	if err != nil {
		return nil, err
	}
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call: %w", err)
	}
	return &res, nil
}

// paramHeaders adds Mcp-Param-<Name> for every top-level argument the
// schema marks with x-mcp-header and the call gives a value.
func paramHeaders(h http.Header, schema json.RawMessage, args map[string]any) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for prop, def := range s.Properties {
		name, _ := def["x-mcp-header"].(string)
		v, present := args[prop]
		if name == "" || !present || v == nil {
			continue
		}
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case bool:
			text = strconv.FormatBool(x)
		default:
			b, err := json.Marshal(x)
			if err != nil {
				continue
			}
			text = string(b)
		}
		h.Set(mcp.HeaderParamPrefix+name, headerText(text))
	}
}

// ListResources lists every resource.
func (c *Client) ListResources(ctx context.Context) ([]Resource, error) {
	return list[Resource](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates lists every resource template.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return list[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ReadResource reads one resource.
func (c *Client) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	raw, err := c.request(ctx, "resources/read", map[string]any{"uri": uri}, nameHeader(uri))
	if err != nil {
		return nil, err
	}
	var res ReadResourceResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("resources/read: %w", err)
	}
	return &res, nil
}

// ListPrompts lists every prompt.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return list[Prompt](ctx, c, "prompts/list", "prompts")
}

// GetPrompt renders a prompt with its (string) arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	raw, err := c.request(ctx, "prompts/get", params, nameHeader(name))
	if err != nil {
		return nil, err
	}
	var res GetPromptResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("prompts/get: %w", err)
	}
	return &res, nil
}
