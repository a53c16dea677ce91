package mcp

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

func (c *call) resourcesList() (*result, *Error) {
	visible := make([]*compiledResource, 0, len(c.h.catalog.resources))
	for _, r := range c.h.catalog.resources {
		if c.access(r.def.Requires) == Allowed {
			visible = append(visible, r)
		}
	}
	items, next, e := page(c, visible, "resources")
	if e != nil {
		return nil, e
	}
	return &result{members: c.listMembers("resources", len(items), func(i int) []byte {
		return pick(c.version, items[i].wire, items[i].wire0618, items[i].wire0326)
	}, next), cacheable: true}, nil
}

func (c *call) templatesList() (*result, *Error) {
	visible := make([]*compiledTemplate, 0, len(c.h.catalog.templates))
	for _, t := range c.h.catalog.templates {
		if c.access(t.def.Requires) == Allowed {
			visible = append(visible, t)
		}
	}
	items, next, e := page(c, visible, "templates")
	if e != nil {
		return nil, e
	}
	return &result{members: c.listMembers("resourceTemplates", len(items), func(i int) []byte {
		return pick(c.version, items[i].wire, items[i].wire0618, items[i].wire0326)
	}, next), cacheable: true}, nil
}

// pick chooses an entry's serialisation for the version in use.
func pick(version string, wire, wire0618, wire0326 []byte) []byte {
	switch version {
	case Version20250326:
		return wire0326
	case Version20250618:
		return wire0618
	}
	return wire
}

func (c *call) listMembers(key string, n int, item func(int) []byte, next string) []byte {
	b := appendQuote(nil, key)
	b = append(b, ":["...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item(i)...)
	}
	b = append(b, ']')
	if next != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendQuote(b, next)
	}
	return b
}

func (c *call) resourcesRead() (*result, *Error) {
	uri, ok := stringMember(c.msg.params.URI)
	if !ok {
		return nil, InvalidParams("resources/read needs params.uri (a string)")
	}
	var (
		read ResourceHandler
		req  Requirement
		vars map[string]string
	)
	if r := c.h.catalog.resourceIndex[uri]; r != nil {
		read, req = r.def.Read, r.def.Requires
	} else {
		for _, t := range c.h.catalog.templates {
			if v, ok := t.def.compiled.match(uri); ok {
				read, req, vars = t.def.Read, t.def.Requires, v
				break
			}
		}
	}
	if read == nil {
		return nil, errResourceNotFound(c.era, uri)
	}
	switch c.access(req) {
	case Hidden:
		return nil, errResourceNotFound(c.era, uri)
	case NeedsScope:
		return nil, c.stepUp(req)
	}
	rr := &ReadResourceRequest{Request: c.request(), URI: uri, Variables: vars}
	noArgs := jsontext.Value("{}")
	if e := c.openState(&rr.Request, uri, noArgs); e != nil {
		return nil, e
	}
	res, err := read(c.ctx, rr)
	if errors.Is(err, ErrResourceNotFound) {
		return nil, errResourceNotFound(c.era, uri)
	}
	if err != nil {
		return nil, c.handlerError(err)
	}
	if res == nil {
		return nil, c.handlerError(fmt.Errorf("resource %s returned no result", uri))
	}
	if res.inputRequired != nil {
		return c.inputRequired(res.inputRequired, uri, noArgs)
	}
	contents := res.Contents
	if contents == nil {
		contents = []ResourceContents{}
	}
	m, err := members(nil).value("contents", contents)
	if err != nil {
		return nil, c.handlerError(err)
	}
	return &result{members: m, cacheable: true, meta: res.Meta}, nil
}
