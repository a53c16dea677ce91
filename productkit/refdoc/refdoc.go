// Package refdoc writes a product's tool reference (docs/tools/<key>.md)
// from its spec: every tool with its REST route, annotations, scopes,
// role, arguments and the Go function that implements it (found by
// reflection, so a reader goes from a tool to its code); every resource,
// template and prompt. It is built
// from the same declarations as the MCP catalog and the OpenAPI document,
// so the reference cannot drift from the code (each product's test
// compares the checked-in file with what Write produces).
package refdoc

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Write renders the reference of spec's catalog as Markdown.
func Write(w io.Writer, spec *productkit.Spec) error {
	l, err := productkit.Catalog(spec)
	if err != nil {
		return err
	}
	where, err := locations(l.API)
	if err != nil {
		return err
	}
	ops := map[string]rest.Operation{}
	for _, op := range l.API.Operations() {
		ops[op.ID] = op
	}
	p := &printer{w: w}
	p.f("# %s — MCP tool reference\n\n", spec.Title)
	p.f("Generated from the product's declarations (`go test ./%s -run TestReferenceDoc -update` rewrites it); do not edit by hand.\n\n", spec.Key)
	p.f("- MCP server name: `%s`, version %s; endpoint `/mcp` on the product's listener (default `%s`).\n", spec.Name, spec.Version, spec.DefaultAddr)
	p.f("- REST API: `%s` (OpenAPI at `%s/openapi.json`); every tool runs its route in-process.\n", spec.APIBase, spec.APIBase)
	if sc := spec.Scopes(); len(sc) > 0 {
		p.f("- Scopes: %s.\n", codeList(sc))
	}
	p.f("- %d tools, %d resources, %d resource templates, %d prompts.\n\n", len(l.Catalog.Tools), len(l.Catalog.Resources), len(l.Catalog.ResourceTemplates), len(l.Catalog.Prompts))
	if len(l.Catalog.Tools) > 0 {
		p.f("## Tools\n\n| tool | route | read-only | destructive | idempotent | open world | scopes | role |\n|---|---|---|---|---|---|---|---|\n")
		for _, t := range l.Catalog.Tools {
			op := ops[t.Name]
			a := t.Annotations
			p.f("| [`%s`](#%s) | `%s %s%s` | %s | %s | %s | %s | %s | %s |\n", t.Name, anchor(t.Name), op.Method, spec.APIBase, op.Path,
				hint(a.ReadOnlyHint), hint(a.DestructiveHint), hint(a.IdempotentHint), hint(a.OpenWorldHint), codeList(t.Requires.Scopes), role(t.Requires.Permission))
		}
		p.f("\n")
		for _, t := range l.Catalog.Tools {
			h, err := handlerOf(l.API.Implementation(t.Name))
			if err != nil {
				return fmt.Errorf("refdoc: tool %s: %w", t.Name, err)
			}
			p.tool(t, where[t.Name], h)
		}
	}
	if len(l.Catalog.Resources) > 0 || len(l.Catalog.ResourceTemplates) > 0 {
		p.f("## Resources\n\n| URI | name | media type | description |\n|---|---|---|---|\n")
		for _, r := range l.Catalog.Resources {
			p.f("| `%s` | %s | %s | %s |\n", r.URI, r.Name, r.MimeType, cell(r.Description))
		}
		for _, r := range l.Catalog.ResourceTemplates {
			p.f("| `%s` (template) | %s | %s | %s |\n", r.URITemplate, r.Name, r.MimeType, cell(r.Description))
		}
		p.f("\n")
	}
	if len(l.Catalog.Prompts) > 0 {
		p.f("## Prompts\n\n")
		for _, pr := range l.Catalog.Prompts {
			p.f("### `%s`\n\n%s\n\n", pr.Name, strings.TrimSpace(pr.Description))
			if len(pr.Arguments) > 0 {
				p.f("| argument | required | description |\n|---|---|---|\n")
				for _, a := range pr.Arguments {
					p.f("| `%s` | %s | %s |\n", a.Name, yes(a.Required), cell(a.Description))
				}
				p.f("\n")
			}
		}
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) tool(t mcp.Tool, where map[string]string, h handler) {
	p.f("### `%s`\n\n**%s.** %s\n\n", t.Name, t.Title, strings.TrimSpace(t.Description))
	// The reference sits in docs/tools/, two folders below the root.
	p.f("Handler: `%s` in [`%s`](../../%s).\n\n", h.Func, h.File, h.File)
	s := t.InputSchema
	if s == nil || len(s.Properties) == 0 {
		p.f("No arguments.\n\n")
		return
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := slices.Contains(s.Required, names[i]), slices.Contains(s.Required, names[j])
		if ri != rj {
			return ri
		}
		return names[i] < names[j]
	})
	p.f("| argument | type | required | in | description |\n|---|---|---|---|---|\n")
	for _, n := range names {
		prop := s.Properties[n]
		in := where[n]
		if n == "idempotency_key" {
			in = "header `X-Idempotency-Key`"
		}
		p.f("| `%s` | %s | %s | %s | %s |\n", n, typeOf(prop), yes(slices.Contains(s.Required, n)), in, cell(prop.Description+constraints(prop)))
	}
	p.f("\n")
}

// locations reads, from the API's OpenAPI document, where each argument
// of each operation travels: path, query or body.
func locations(api *rest.API) (map[string]map[string]string, error) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
			RequestBody *struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		return nil, fmt.Errorf("refdoc: the OpenAPI document: %w", err)
	}
	out := map[string]map[string]string{}
	for _, methods := range doc.Paths {
		for _, op := range methods {
			m := map[string]string{}
			for _, prm := range op.Parameters {
				m[prm.Name] = prm.In
			}
			if op.RequestBody != nil {
				for _, c := range op.RequestBody.Content {
					for n := range c.Schema.Properties {
						m[n] = "body"
					}
				}
			}
			out[op.OperationID] = m
		}
	}
	return out, nil
}

func typeOf(s *jsonschema.Schema) string {
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		t = strings.Join(s.Types, " or ")
	}
	if t == "array" && s.Items != nil {
		return "array of " + typeOf(s.Items)
	}
	if t == "" {
		return "any"
	}
	return t
}

func constraints(s *jsonschema.Schema) string {
	var parts []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprintf("`%v`", v)
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if s.Minimum != nil && s.Maximum != nil {
		parts = append(parts, fmt.Sprintf("%v–%v", *s.Minimum, *s.Maximum))
	}
	if s.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// role is the least role whose permission class allows the operation.
func role(permission string) string {
	for _, r := range identity.Roles {
		if r.Allows(permission) {
			return string(r)
		}
	}
	return "—"
}

func hint(b *bool) string {
	if b == nil {
		return "?"
	}
	return yes(*b)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func codeList(list []string) string {
	if len(list) == 0 {
		return "—"
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}

// anchor is the heading id GitHub gives "### `name`".
func anchor(name string) string { return strings.ToLower(name) }
