package mcp

import (
	encjson "encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

// compiledCatalog is a Catalog checked once and serialised once per wire
// shape, so that lists are assembled from ready bytes.
type compiledCatalog struct {
	tools     []*compiledTool
	toolIndex map[string]*compiledTool

	resources     []*compiledResource
	resourceIndex map[string]*compiledResource

	templates     []*compiledTemplate
	templateIndex map[string]*compiledTemplate

	prompts     []*compiledPrompt
	promptIndex map[string]*compiledPrompt
}

type compiledTool struct {
	def        Tool
	wire       []byte // 2026-07-28
	wire0618   []byte // 2025-06-18: no reserved _meta, outputSchema only when an object schema
	wire0326   []byte // 2025-03-26: no title, no outputSchema
	schema     *jsonschema.Resolved
	properties map[string]bool // declared argument names; nil when any key is allowed
	strict     bool
	headers    map[string]string // Mcp-Param-<Name> (canonical) → argument name
}

// Each entry is serialised three times: for 2026-07-28, for 2025-06-18
// (no reserved _meta keys) and for 2025-03-26 (no titles either).

type compiledResource struct {
	def                      Resource
	wire, wire0618, wire0326 []byte
}

type compiledTemplate struct {
	def                      ResourceTemplate
	wire, wire0618, wire0326 []byte
}

type compiledPrompt struct {
	def                      Prompt
	wire, wire0618, wire0326 []byte
	arguments                map[string]bool
}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var emptyObjectSchema = []byte(`{"type":"object","additionalProperties":false}`)

func compileCatalog(cat Catalog) (*compiledCatalog, error) {
	cc := &compiledCatalog{
		toolIndex:     map[string]*compiledTool{},
		resourceIndex: map[string]*compiledResource{},
		templateIndex: map[string]*compiledTemplate{},
		promptIndex:   map[string]*compiledPrompt{},
	}
	for _, t := range cat.Tools {
		ct, err := compileTool(t)
		if err != nil {
			return nil, err
		}
		if cc.toolIndex[t.Name] != nil {
			return nil, fmt.Errorf("mcp: tool %q is declared twice", t.Name)
		}
		cc.tools = append(cc.tools, ct)
		cc.toolIndex[t.Name] = ct
	}
	for _, r := range cat.Resources {
		if r.URI == "" || r.Name == "" || r.Read == nil {
			return nil, fmt.Errorf("mcp: resource %q needs a URI, a name and a Read handler", r.URI)
		}
		if cc.resourceIndex[r.URI] != nil {
			return nil, fmt.Errorf("mcp: resource %q is declared twice", r.URI)
		}
		cr := &compiledResource{def: r}
		cr.wire = mustMarshal(resourceWire(r, Version20260728))
		cr.wire0618 = mustMarshal(resourceWire(r, Version20250618))
		cr.wire0326 = mustMarshal(resourceWire(r, Version20250326))
		cc.resources = append(cc.resources, cr)
		cc.resourceIndex[r.URI] = cr
	}
	for _, t := range cat.ResourceTemplates {
		tpl, err := parseURITemplate(t.URITemplate)
		if err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
		if t.Name == "" || t.Read == nil {
			return nil, fmt.Errorf("mcp: resource template %q needs a name and a Read handler", t.URITemplate)
		}
		if cc.templateIndex[t.URITemplate] != nil {
			return nil, fmt.Errorf("mcp: resource template %q is declared twice", t.URITemplate)
		}
		t.compiled = tpl
		ct := &compiledTemplate{def: t}
		ct.wire = mustMarshal(templateWire(t, Version20260728))
		ct.wire0618 = mustMarshal(templateWire(t, Version20250618))
		ct.wire0326 = mustMarshal(templateWire(t, Version20250326))
		cc.templates = append(cc.templates, ct)
		cc.templateIndex[t.URITemplate] = ct
	}
	for _, p := range cat.Prompts {
		if p.Name == "" || p.Get == nil {
			return nil, fmt.Errorf("mcp: prompt %q needs a name and a Get handler", p.Name)
		}
		if cc.promptIndex[p.Name] != nil {
			return nil, fmt.Errorf("mcp: prompt %q is declared twice", p.Name)
		}
		cp := &compiledPrompt{def: p, arguments: map[string]bool{}}
		for _, a := range p.Arguments {
			cp.arguments[a.Name] = true
		}
		cp.wire = mustMarshal(promptWire(p, Version20260728))
		cp.wire0618 = mustMarshal(promptWire(p, Version20250618))
		cp.wire0326 = mustMarshal(promptWire(p, Version20250326))
		cc.prompts = append(cc.prompts, cp)
		cc.promptIndex[p.Name] = cp
	}
	return cc, nil
}

func compileTool(t Tool) (*compiledTool, error) {
	if !toolNamePattern.MatchString(t.Name) {
		return nil, fmt.Errorf("mcp: tool name %q must match [A-Za-z0-9_.-]{1,128}", t.Name)
	}
	if t.Handler == nil {
		return nil, fmt.Errorf("mcp: tool %q has no handler", t.Name)
	}
	ct := &compiledTool{def: t, strict: t.StrictArguments || t.IsReadOnly()}
	input := emptyObjectSchema
	if t.InputSchema != nil {
		if t.InputSchema.Type != "object" {
			return nil, fmt.Errorf("mcp: tool %q: the input schema's root must be {\"type\":\"object\"}", t.Name)
		}
		b, err := encjson.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
		}
		input = b
		resolved, err := t.InputSchema.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
		}
		ct.schema = resolved
		ct.properties = map[string]bool{}
		for name, prop := range t.InputSchema.Properties {
			ct.properties[name] = true
			if hdr, ok := prop.Extra["x-mcp-header"].(string); ok && hdr != "" {
				if ct.headers == nil {
					ct.headers = map[string]string{}
				}
				ct.headers[canonicalHeader(HeaderParamPrefix+hdr)] = name
			}
		}
	} else {
		ct.properties = map[string]bool{}
		ct.strict = true
	}
	var output []byte
	if t.OutputSchema != nil {
		b, err := encjson.Marshal(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %q: output schema: %w", t.Name, err)
		}
		output = b
	}
	ct.wire = mustMarshal(toolWire{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: input, OutputSchema: output, Annotations: t.Annotations, Meta: t.Meta})
	output0618 := output
	if t.OutputSchema != nil && t.OutputSchema.Type != "object" {
		output0618 = nil
	}
	ct.wire0618 = mustMarshal(toolWire{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: input, OutputSchema: output0618, Annotations: t.Annotations, Meta: withoutReservedMeta(t.Meta)})
	ct.wire0326 = mustMarshal(toolWire{Name: t.Name, Description: t.Description, InputSchema: input, Annotations: t.Annotations, Meta: withoutReservedMeta(t.Meta)})
	return ct, nil
}

func canonicalHeader(s string) string {
	return strings.ToLower(s)
}

type toolWire struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description,omitempty"`
	InputSchema  encjson.RawMessage `json:"inputSchema"`
	OutputSchema encjson.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations   `json:"annotations,omitempty"`
	Meta         map[string]any     `json:"_meta,omitempty"`
}

type resourceWireT struct {
	URI         string         `json:"uri,omitempty"`
	URITemplate string         `json:"uriTemplate,omitempty"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

func resourceWire(r Resource, version string) resourceWireT {
	w := resourceWireT{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MimeType, Size: r.Size, Meta: r.Meta}
	downgrade(&w, version)
	return w
}

func templateWire(t ResourceTemplate, version string) resourceWireT {
	w := resourceWireT{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType, Meta: t.Meta}
	downgrade(&w, version)
	return w
}

func downgrade(w *resourceWireT, version string) {
	if version != Version20260728 {
		w.Meta = withoutReservedMeta(w.Meta)
	}
	if version == Version20250326 {
		w.Title = ""
	}
}

type promptWireT struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

func promptWire(p Prompt, version string) promptWireT {
	w := promptWireT{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments, Meta: p.Meta}
	if version != Version20260728 {
		w.Meta = withoutReservedMeta(p.Meta)
	}
	if version == Version20250326 {
		w.Title = ""
		w.Arguments = slices.Clone(p.Arguments)
		for i := range w.Arguments {
			w.Arguments[i].Title = ""
		}
	}
	return w
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		panic(fmt.Sprintf("mcp: cannot serialise catalog entry: %v", err))
	}
	return b
}
