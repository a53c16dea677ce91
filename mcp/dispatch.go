package mcp

import (
	"context"
	"errors"
)

// methodFunc serves one method once the envelope has been checked.
type methodFunc func(c *call) (*result, *Error)

// Methods of each era. The 2026 era removed initialize and ping; the 2025
// era has no server/discover. Feature methods exist only when the catalog
// offers the feature, so the capabilities we advertise match what answers.
var (
	modernMethods = map[string]methodFunc{
		"server/discover":          (*call).discover,
		"tools/list":               (*call).toolsList,
		"tools/call":               (*call).toolsCall,
		"resources/list":           (*call).resourcesList,
		"resources/templates/list": (*call).templatesList,
		"resources/read":           (*call).resourcesRead,
		"prompts/list":             (*call).promptsList,
		"prompts/get":              (*call).promptsGet,
		"completion/complete":      (*call).complete,
	}
	legacyMethods = map[string]methodFunc{
		"initialize":               (*call).initialize,
		"ping":                     (*call).ping,
		"tools/list":               (*call).toolsList,
		"tools/call":               (*call).toolsCall,
		"resources/list":           (*call).resourcesList,
		"resources/templates/list": (*call).templatesList,
		"resources/read":           (*call).resourcesRead,
		"prompts/list":             (*call).promptsList,
		"prompts/get":              (*call).promptsGet,
		"completion/complete":      (*call).complete,
	}
)

func (c *call) dispatch() (*result, *Error) {
	table := legacyMethods
	if c.era == EraModern {
		table = modernMethods
	}
	fn, ok := table[c.msg.method]
	if !ok || !c.h.offers(c.msg.method) {
		return nil, errMethodNotFound(c.era, c.msg.method)
	}
	return fn(c)
}

// offers reports whether the catalog has the feature a method belongs to.
func (h *Handler) offers(method string) bool {
	switch method {
	case "tools/list", "tools/call":
		return h.hasTools()
	case "resources/list", "resources/templates/list", "resources/read":
		return h.hasResources()
	case "prompts/list", "prompts/get":
		return h.hasPrompts()
	case "completion/complete":
		return h.hasCompletions()
	}
	return true
}

func (h *Handler) hasTools() bool { return len(h.catalog.tools) > 0 }
func (h *Handler) hasResources() bool {
	return len(h.catalog.resources) > 0 || len(h.catalog.templates) > 0
}
func (h *Handler) hasPrompts() bool { return len(h.catalog.prompts) > 0 }
func (h *Handler) hasCompletions() bool {
	for _, p := range h.catalog.prompts {
		if p.def.Complete != nil {
			return true
		}
	}
	for _, t := range h.catalog.templates {
		if t.def.Complete != nil {
			return true
		}
	}
	return false
}

// handlerError turns what a handler returned into the error the client sees.
func (c *call) handlerError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrInvalidState):
		return InvalidParams("%v", err)
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeInternalError, Message: "Request cancelled"}
	}
	c.h.log.ErrorContext(c.ctx, "mcp: handler failed", "method", c.msg.method, "error", err)
	return errInternal()
}

// access judges one entry for this caller.
func (c *call) access(req Requirement) Access {
	return c.h.auth.Access(c.ctx, req)
}

// stepUp writes the insufficient-scope answer for req.
func (c *call) stepUp(req Requirement) *Error {
	c.h.auth.InsufficientScope(c.w, c.r, req)
	return errAlreadyWritten
}
