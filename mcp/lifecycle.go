package mcp

// buildStaticResults serialises the answers that never change: discover,
// initialize per negotiated version, and the serverInfo of 2026 results.
func (h *Handler) buildStaticResults() {
	info := Implementation{Name: h.opts.Name, Title: h.opts.Title, Version: h.opts.Version}
	h.serverInfoModern = appendQuote(nil, MetaServerInfo)
	h.serverInfoModern = append(h.serverInfoModern, ':')
	h.serverInfoModern = append(h.serverInfoModern, mustMarshal(info)...)

	// 2026: a capability object per feature, with no sub-flags: nothing can
	// be pushed to a client that has no stream from us.
	var caps members
	legacyCaps := members{}
	if h.hasTools() {
		caps = caps.raw("tools", []byte(`{}`))
		legacyCaps = legacyCaps.raw("tools", []byte(`{"listChanged":false}`))
	}
	if h.hasResources() {
		caps = caps.raw("resources", []byte(`{}`))
		legacyCaps = legacyCaps.raw("resources", []byte(`{"subscribe":false,"listChanged":false}`))
	}
	if h.hasPrompts() {
		caps = caps.raw("prompts", []byte(`{}`))
		legacyCaps = legacyCaps.raw("prompts", []byte(`{"listChanged":false}`))
	}
	if h.hasCompletions() {
		caps = caps.raw("completions", []byte(`{}`))
		legacyCaps = legacyCaps.raw("completions", []byte(`{}`))
	}
	h.capsModern = append(append([]byte{'{'}, caps...), '}')
	legacyCapsObj := append(append([]byte{'{'}, legacyCaps...), '}')

	var d members
	d = d.raw("supportedVersions", mustMarshal(SupportedVersions))
	d = d.raw("capabilities", h.capsModern)
	if h.opts.Instructions != "" {
		d = d.raw("instructions", appendQuote(nil, h.opts.Instructions))
	}
	h.discoverResult = d
	// Only the 2026 era has server/discover: its answer is decorated once.
	h.discover = &result{members: (&call{h: h, era: EraModern}).answerTail(&result{members: d, cacheable: true}), kept: true}

	h.initResult = map[string][]byte{}
	for _, v := range []string{Version20250618, Version20250326} {
		si := info
		if v == Version20250326 {
			si.Title = ""
		}
		var m members
		m = m.raw("protocolVersion", appendQuote(nil, v))
		m = m.raw("capabilities", legacyCapsObj)
		m = m.raw("serverInfo", mustMarshal(si))
		if h.opts.Instructions != "" {
			m = m.raw("instructions", appendQuote(nil, h.opts.Instructions))
		}
		h.initResult[v] = m
	}
}

func (c *call) discover() (*result, *Error) {
	return c.h.discover, nil
}

// initialize negotiates among the 2025 revisions only: a client asking for
// anything else (2026-07-28 included, which is discovered, not negotiated)
// is offered 2025-06-18, as the 2025 lifecycle prescribes.
func (c *call) initialize() (*result, *Error) {
	requested, ok := stringMember(c.msg.params.ProtocolVersion)
	if !ok {
		return nil, InvalidParams("initialize needs params.protocolVersion (a string)")
	}
	negotiated := DefaultLegacyVersion
	if isLegacyVersion(requested) {
		negotiated = requested
	}
	c.version = negotiated
	c.w.Header()[canonicalProtocolVersion] = []string{negotiated}
	return &result{members: c.h.initResult[negotiated]}, nil
}

func (c *call) ping() (*result, *Error) { return &result{}, nil }
