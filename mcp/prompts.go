package mcp

import (
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func (c *call) promptsList() (*result, *Error) {
	visible := make([]*compiledPrompt, 0, len(c.h.catalog.prompts))
	for _, p := range c.h.catalog.prompts {
		if c.access(p.def.Requires) == Allowed {
			visible = append(visible, p)
		}
	}
	items, next, e := page(c, visible, "prompts")
	if e != nil {
		return nil, e
	}
	return &result{members: c.listMembers("prompts", len(items), func(i int) []byte {
		return pick(c.version, items[i].wire, items[i].wire0618, items[i].wire0326)
	}, next), cacheable: true}, nil
}

// findPrompt returns a prompt this caller may use, answering the step-up
// challenge when only a scope is missing and "unknown" when it is hidden.
func (c *call) findPrompt(name string) (*compiledPrompt, *Error) {
	p := c.h.catalog.promptIndex[name]
	if p == nil {
		return nil, InvalidParams("Unknown prompt: %s", name)
	}
	switch c.access(p.def.Requires) {
	case Hidden:
		return nil, InvalidParams("Unknown prompt: %s", name)
	case NeedsScope:
		return nil, c.stepUp(p.def.Requires)
	}
	return p, nil
}

func stringMap(raw jsontext.Value, what string) (map[string]string, *Error) {
	if raw == nil || string(raw) == "null" {
		return map[string]string{}, nil
	}
	var m map[string]string
	if raw.Kind() != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, InvalidParams("%s must be an object of strings", what)
	}
	return m, nil
}

func (c *call) promptsGet() (*result, *Error) {
	name, ok := stringMember(c.msg.params.Name)
	if !ok {
		return nil, InvalidParams("prompts/get needs params.name (a string)")
	}
	p, e := c.findPrompt(name)
	if e != nil {
		return nil, e
	}
	args, e := stringMap(c.msg.params.Arguments, "prompts/get params.arguments")
	if e != nil {
		return nil, e
	}
	for _, a := range p.def.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, InvalidParams("Missing required argument: %s", a.Name)
		}
	}
	for k := range args {
		if !p.arguments[k] {
			return nil, InvalidParams("Unknown argument for prompt %s: %s", name, k)
		}
	}
	argsJSON := jsontext.Value(c.msg.params.Arguments)
	req := &GetPromptRequest{Request: c.request(), Name: name, Arguments: args}
	if e := c.openState(&req.Request, name, argsJSON); e != nil {
		return nil, e
	}
	res, err := p.def.Get(c.ctx, req)
	if err != nil {
		return nil, c.handlerError(err)
	}
	if res == nil {
		return nil, c.handlerError(fmt.Errorf("prompt %s returned no result", name))
	}
	if res.inputRequired != nil {
		return c.inputRequired(res.inputRequired, name, argsJSON)
	}
	var m members
	if res.Description != "" {
		m = m.raw("description", appendQuote(nil, res.Description))
	}
	msgs := res.Messages
	if msgs == nil {
		msgs = []PromptMessage{}
	}
	if c.version == Version20250326 {
		msgs = slices.Clone(msgs)
		for i := range msgs {
			msgs[i].Content = msgs[i].Content.forVersion(c.version)
		}
	}
	m, err = m.value("messages", msgs)
	if err != nil {
		return nil, c.handlerError(err)
	}
	return &result{members: m, meta: res.Meta}, nil
}
