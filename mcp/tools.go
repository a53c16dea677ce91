package mcp

import (
	encjson "encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/internal/jsonscan"
)

func (c *call) toolsList() (*result, *Error) {
	key, classed := c.listKeyOf()
	if classed {
		if tail, ok := c.h.toolLists.get(key); ok {
			c.res = result{members: tail, kept: true}
			return &c.res, nil
		}
	}
	visible := make([]*compiledTool, 0, len(c.h.catalog.tools))
	for _, t := range c.h.catalog.tools {
		if c.access(t.def.Requires) == Allowed {
			visible = append(visible, t)
		}
	}
	items, next, e := page(c, visible, "tools")
	if e != nil {
		return nil, e
	}
	size := 64
	for _, t := range items {
		size += len(t.wire) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `"tools":[`...)
	for i, t := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, pick(c.version, t.wire, t.wire0618, t.wire0326)...)
	}
	b = append(b, ']')
	if next != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendQuote(b, next)
	}
	res := &result{members: b, cacheable: true}
	if classed {
		// The key holds the version, so the era: the decorated answer is
		// kept, not just its members (writeTail).
		tail := c.answerTail(res)
		c.h.toolLists.put(key, tail)
		return &result{members: tail, kept: true}, nil
	}
	return res, nil
}

// calledTool is the tool params.name names: its name, the catalog's tool
// (nil when there is none of that name) and whether params.name is a
// string at all. It is read once per message; a known tool's name is the
// catalog's own string, so naming it costs no copy of the body.
func (h *Handler) calledTool(m *message) (name string, t *compiledTool, ok bool) {
	if !m.named {
		m.named = true
		b, isString := jsonscan.Unquoted(m.params.Name)
		m.nameOK = isString
		if isString {
			if m.tool = h.catalog.toolIndex[string(b)]; m.tool != nil {
				m.toolName = m.tool.def.Name
			} else {
				m.toolName = string(b)
			}
		}
	}
	return m.toolName, m.tool, m.nameOK
}

func (c *call) toolsCall() (*result, *Error) {
	name, t, ok := c.h.calledTool(&c.msg)
	if !ok {
		return nil, InvalidParams("tools/call needs params.name (a string)")
	}
	if t == nil {
		return nil, InvalidParams("Unknown tool: %s", name)
	}
	switch c.access(t.def.Requires) {
	case Hidden:
		return nil, InvalidParams("Unknown tool: %s", name)
	case NeedsScope:
		return nil, c.stepUp(t.def.Requires)
	}
	args := jsontext.Value(c.msg.params.Arguments)
	if args == nil || string(args) == "null" {
		args = jsontext.Value("{}")
	}
	if args.Kind() != '{' {
		return nil, InvalidParams("tools/call params.arguments must be an object")
	}
	if c.era == EraModern && t.headers != nil {
		if e := c.checkParamHeaders(t, args); e != nil {
			return nil, e
		}
	}
	req := &CallToolRequest{Request: c.request(), Name: name, Arguments: encjson.RawMessage(args)}
	if e := c.openState(&req.Request, name, args); e != nil {
		return nil, e
	}
	if msg := t.checkArguments(args); msg != "" {
		return c.toolResult(ErrorResult(msg), name, args)
	}
	if c.needsConfirmation(t) {
		return c.confirmThenRun(t, req, args)
	}
	res, err := t.def.Handler(c.ctx, req)
	if err != nil {
		return nil, c.handlerError(err)
	}
	if res == nil {
		return nil, c.handlerError(fmt.Errorf("tool %s returned no result", name))
	}
	return c.toolResult(res, name, args)
}

// checkArguments validates arguments before the handler runs and returns
// the message of a tool execution error, or "" when they are acceptable.
// Unknown keys are named, so a model can correct a misspelt filter.
func (t *compiledTool) checkArguments(args jsontext.Value) string {
	if t.strict && t.properties != nil && !t.def.HandlerRefusesUnknownArguments {
		if unknown := unknownKeys(args, t.properties); len(unknown) > 0 {
			allowed := slices.Sorted(maps.Keys(t.properties))
			msg := fmt.Sprintf("Invalid arguments: unknown argument %s", quoteList(unknown))
			if len(allowed) > 0 {
				msg += fmt.Sprintf("; %s accepts %s", t.def.Name, quoteList(allowed))
			} else {
				msg += fmt.Sprintf("; %s takes no arguments", t.def.Name)
			}
			return msg
		}
	}
	if t.schema != nil && !t.def.SkipSchemaValidation {
		var v map[string]any
		if err := encjson.Unmarshal(args, &v); err != nil {
			return "Invalid arguments: " + err.Error()
		}
		if err := t.schema.Validate(v); err != nil {
			return "Invalid arguments: " + err.Error()
		}
	}
	return ""
}

// unknownKeys lists the top-level keys of an object that are not declared,
// reading them in place without building the object.
func unknownKeys(obj jsontext.Value, declared map[string]bool) []string {
	s := jsonscan.Get()
	defer jsonscan.Put(s)
	if s.Start(obj) != nil {
		return nil
	}
	var unknown []string
	for {
		name, _, ok, err := s.Next()
		if err != nil || !ok {
			return unknown
		}
		if !declared[string(name)] {
			unknown = append(unknown, string(name))
		}
	}
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// checkParamHeaders compares the Mcp-Param-* headers this tool declares
// (x-mcp-header) with the arguments they mirror.
func (c *call) checkParamHeaders(t *compiledTool, args jsontext.Value) *Error {
	var values map[string]jsontext.Value
	if err := json.Unmarshal(args, &values); err != nil {
		return InvalidParams("tools/call params.arguments must be an object")
	}
	for header, arg := range t.headers {
		raw, inBody := values[arg]
		if string(raw) == "null" {
			inBody = false
		}
		hv, present, repeated := headerValue(c.r.Header, header)
		switch {
		case repeated:
			return errHeaderMismatch("%s header appears more than once", header)
		case !inBody && present:
			return errHeaderMismatch("%s header is present but argument '%s' is absent", header, arg)
		case inBody && !present:
			return errHeaderMismatch("%s header is required when argument '%s' is present", header, arg)
		case !inBody:
			continue
		}
		decoded, ok := decodeHeaderText(hv)
		if !ok {
			return errHeaderMismatch("%s header value is not valid header text or base64", header)
		}
		if !headerMatchesValue(decoded, raw) {
			return errHeaderMismatch("%s header value '%s' does not match argument '%s'", header, decoded, arg)
		}
	}
	return nil
}

// headerMatchesValue compares a header's text with a JSON scalar: strings
// literally, numbers numerically, booleans as true/false.
func headerMatchesValue(h string, v jsontext.Value) bool {
	switch v.Kind() {
	case '"':
		s, _ := stringMember(v)
		return s == h
	case '0':
		a, err1 := strconv.ParseFloat(h, 64)
		b, err2 := strconv.ParseFloat(string(v), 64)
		return err1 == nil && err2 == nil && a == b
	case 't', 'f':
		return h == string(v)
	}
	return false
}

// toolResult writes a tool's answer for the era.
func (c *call) toolResult(res *CallToolResult, name string, args jsontext.Value) (*result, *Error) {
	if res.inputRequired != nil {
		return c.inputRequired(res.inputRequired, name, args)
	}
	content := res.Content
	if content == nil {
		content = []Content{}
	}
	if c.version == Version20250326 {
		content = slices.Clone(content)
		for i := range content {
			content[i] = content[i].forVersion(c.version)
		}
	}
	// The members are written in a pooled buffer that writeResult gives
	// back once the answer is written.
	scratch := outPool.Get().(*[]byte)
	m, err := appendContent(members(slices.Grow((*scratch)[:0], 64+contentSize(content))), content)
	if err != nil {
		return nil, c.handlerError(err)
	}
	if res.StructuredContent != nil && c.version != Version20250326 {
		b, err := json.Marshal(res.StructuredContent, json.Deterministic(true))
		if err != nil {
			return nil, c.handlerError(err)
		}
		if c.era == EraModern || jsontext.Value(b).Kind() == '{' {
			m = m.raw("structuredContent", b)
		}
	}
	if res.IsError {
		m = m.raw("isError", []byte("true"))
		if obs := ObservationFrom(c.r.Context()); obs != nil {
			obs.ToolError = true
		}
		if c.trace != nil {
			c.trace.ToolError = true
		}
	}
	c.res = result{members: m, meta: res.Meta, scratch: scratch}
	return &c.res, nil
}

// appendContent writes the "content" member. Text blocks, by far the most
// common, are written directly; other blocks go through the encoder.
func appendContent(m members, content []Content) (members, error) {
	m = append(m, `"content":[`...)
	for i, block := range content {
		if i > 0 {
			m = append(m, ',')
		}
		if block.Type == "text" && block.Meta == nil {
			m = append(m, `{"type":"text","text":`...)
			m = appendQuote(m, block.Text)
			m = append(m, '}')
			continue
		}
		b, err := json.Marshal(block)
		if err != nil {
			return m, err
		}
		m = append(m, b...)
	}
	return append(m, ']'), nil
}

func contentSize(content []Content) int {
	n := 0
	for _, b := range content {
		n += len(b.Text) + len(b.Data) + 32
	}
	return n
}
