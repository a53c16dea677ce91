package mcp

import (
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// maxCompletionValues is the most values one completion may carry.
const maxCompletionValues = 100

type completeRef struct {
	Type string `json:"type"`
	Name string `json:"name"`
	URI  string `json:"uri"`
}

type completeArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type completeContext struct {
	Arguments map[string]string `json:"arguments"`
}

func (c *call) complete() (*result, *Error) {
	p := &c.msg.params
	var ref completeRef
	if p.Ref.Kind() != '{' || json.Unmarshal(p.Ref, &ref) != nil {
		return nil, InvalidParams("completion/complete needs params.ref (an object)")
	}
	var arg completeArgument
	if p.Argument.Kind() != '{' || json.Unmarshal(p.Argument, &arg) != nil || arg.Name == "" {
		return nil, InvalidParams("completion/complete needs params.argument with a name and a value")
	}
	var cctx completeContext
	if p.Context != nil && string(p.Context) != "null" {
		if p.Context.Kind() != '{' || json.Unmarshal(p.Context, &cctx) != nil {
			return nil, InvalidParams("completion/complete params.context.arguments must be an object of strings")
		}
	}
	var handler CompleteHandler
	switch ref.Type {
	case "ref/prompt":
		pr, e := c.findPrompt(ref.Name)
		if e != nil {
			return nil, e
		}
		if !pr.arguments[arg.Name] {
			return nil, InvalidParams("Prompt %s has no argument %s", ref.Name, arg.Name)
		}
		handler = pr.def.Complete
	case "ref/resource":
		t := c.h.catalog.templateIndex[ref.URI]
		if t == nil || c.access(t.def.Requires) == Hidden {
			return nil, InvalidParams("Unknown resource template: %s", ref.URI)
		}
		if c.access(t.def.Requires) == NeedsScope {
			return nil, c.stepUp(t.def.Requires)
		}
		if !slices.Contains(t.def.compiled.vars, arg.Name) {
			return nil, InvalidParams("Resource template %s has no variable %s", ref.URI, arg.Name)
		}
		handler = t.def.Complete
	default:
		return nil, InvalidParams("params.ref.type must be ref/prompt or ref/resource")
	}
	completion := &Completion{Values: []string{}}
	if handler != nil {
		req := &CompleteRequest{Request: c.request(), Argument: arg.Name, Value: arg.Value, Context: cctx.Arguments}
		got, err := handler(c.ctx, req)
		if err != nil {
			return nil, c.handlerError(err)
		}
		if got != nil {
			completion = got
		}
	}
	if completion.Values == nil {
		completion.Values = []string{}
	}
	if len(completion.Values) > maxCompletionValues {
		cp := *completion
		cp.Values = completion.Values[:maxCompletionValues]
		cp.HasMore = true
		completion = &cp
	}
	m, err := members(nil).value("completion", completion)
	if err != nil {
		return nil, c.handlerError(err)
	}
	return &result{members: m}, nil
}

var _ jsontext.Value
