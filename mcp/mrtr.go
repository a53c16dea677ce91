package mcp

import (
	"maps"
	"net/http"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// openState reads the requestState and inputResponses of a retry. The state
// must open under our keys and be bound to this caller, this method, this
// name and these exact arguments; anything else is -32602 and nothing runs.
func (c *call) openState(req *Request, name string, args jsontext.Value) *Error {
	p := &c.msg.params
	var asked map[string]string
	if p.RequestState != nil && string(p.RequestState) != "null" {
		token, ok := stringMember(p.RequestState)
		if !ok {
			return InvalidParams("requestState must be a string")
		}
		st, err := c.h.opts.States.open(token, c.binding(name, args))
		if err != nil {
			return InvalidParams("Invalid requestState: %v", err)
		}
		req.State = st
		asked = st.asked
		if asked == nil {
			asked = map[string]string{}
		}
	}
	responses, e := parseInputResponses(p.InputResponses, asked)
	if e != nil {
		return e
	}
	req.InputResponses = responses
	return nil
}

func (c *call) binding(name string, args jsontext.Value) binding {
	return binding{
		principal: c.h.auth.Principal(c.ctx),
		method:    c.msg.method,
		name:      name,
		argsHash:  argumentsHash(args),
	}
}

// inputRequired writes an input_required result. Only 2026-07-28 clients
// can answer one, and only with the capabilities they declared in this
// request; asking anything else would leave the client stuck.
func (c *call) inputRequired(ir *InputRequired, name string, args jsontext.Value) (*result, *Error) {
	if c.era != EraModern {
		if c.msg.method == "tools/call" {
			return c.toolResult(ErrorResult("This tool needs an answer from the person (a confirmation or a choice), which only clients speaking MCP 2026-07-28 can give. It was not run."), name, args)
		}
		return nil, NewError(CodeInvalidRequest, "This request needs an answer from the person, which only clients speaking MCP 2026-07-28 can give", nil)
	}
	missing := map[string]any{}
	asked := make(map[string]string, len(ir.Requests))
	for key, r := range ir.Requests {
		asked[key] = r.Method
		maps.Copy(missing, r.missingCapability(c.caps))
	}
	if len(missing) > 0 {
		return nil, &Error{
			Code:    CodeMissingRequiredClientCapability,
			Message: "This request needs a client capability that was not declared",
			Data:    MissingCapabilityData{RequiredCapabilities: missing},
			Status:  http.StatusBadRequest,
		}
	}
	token, err := c.h.opts.States.seal(c.binding(name, args), asked, ir.Data, ir.TTL)
	if err != nil {
		return nil, c.handlerError(err)
	}
	var m members
	if len(ir.Requests) > 0 {
		m, err = m.value("inputRequests", ir.Requests)
		if err != nil {
			return nil, c.handlerError(err)
		}
	}
	m = m.raw("requestState", appendQuote(nil, token))
	return &result{members: m, inputRequired: true}, nil
}

var _ = json.Marshal
