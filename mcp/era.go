package mcp

import "github.com/kobana/kobana-mcp/internal/jsonscan"

// _meta keys of the 2026-07-28 request envelope.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// detectEra decides the era from the body, with the headers as a
// cross-check, and runs the era's envelope checks in the order the
// conformance suite pins: header mismatch (-32020) before version (-32022)
// before envelope completeness (-32602) before routing.
func (c *call) detectEra() *Error {
	p := &c.msg.params
	if p.metaOK && p.hasVersion {
		return c.checkModern(p)
	}
	return c.checkLegacy()
}

func (c *call) checkModern(p *params) *Error {
	c.era = EraModern
	vb, ok := jsonscan.Unquoted(p.metaVersion)
	if !ok {
		return errEnvelope("_meta[\"" + MetaProtocolVersion + "\"] must be a string")
	}
	version := internVersion(vb)
	h := c.r.Header
	hv, present, repeated := headerValue(h, canonicalProtocolVersion)
	switch {
	case !present:
		return errHeaderMismatch("%s header is required and must equal the envelope's version '%s'", HeaderProtocolVersion, version)
	case repeated:
		return errHeaderMismatch("%s header appears more than once", HeaderProtocolVersion)
	case hv != version:
		return errHeaderMismatch("%s header value '%s' does not match body value '%s'", HeaderProtocolVersion, hv, version)
	}
	mv, present, repeated := headerValue(h, HeaderMethod)
	switch {
	case !present:
		return errHeaderMismatch("%s header is required and must equal the method '%s'", HeaderMethod, c.msg.method)
	case repeated:
		return errHeaderMismatch("%s header appears more than once", HeaderMethod)
	case mv != c.msg.method:
		return errHeaderMismatch("%s header value '%s' does not match body value '%s'", HeaderMethod, mv, c.msg.method)
	}
	if member := nameMember(c.msg.method); member != "" {
		// Only compared, so read in place; copied only for an error.
		var bodyValue []byte
		if member == "uri" {
			bodyValue, _ = jsonscan.Unquoted(c.msg.params.URI)
		} else {
			bodyValue, _ = jsonscan.Unquoted(c.msg.params.Name)
		}
		nv, present, repeated := headerValue(h, HeaderName)
		switch {
		case !present:
			return errHeaderMismatch("%s header is required on %s and must equal params.%s", HeaderName, c.msg.method, member)
		case repeated:
			return errHeaderMismatch("%s header appears more than once", HeaderName)
		}
		decoded, ok := decodeHeaderText(nv)
		if !ok {
			return errHeaderMismatch("%s header value is not valid header text or base64", HeaderName)
		}
		if decoded != string(bodyValue) {
			return errHeaderMismatch("%s header value '%s' does not match body value '%s'", HeaderName, decoded, bodyValue)
		}
	}
	if !isModernVersion(version) {
		return errUnsupportedVersion(version)
	}
	if !p.hasCaps {
		return errEnvelope("_meta[\"" + MetaClientCapabilities + "\"] is required (an object; {} will do)")
	}
	if p.metaCaps.Kind() != '{' {
		return errEnvelope("_meta[\"" + MetaClientCapabilities + "\"] must be an object")
	}
	c.caps = ClientCapabilities{raw: p.metaCaps}
	c.version = version
	return nil
}

// internVersion is the envelope's version as a string: the package's own
// constant when it is one we speak (it is kept for the whole request), a
// copy otherwise.
func internVersion(v []byte) string {
	for _, known := range SupportedVersions {
		if string(v) == known {
			return known
		}
	}
	return string(v)
}

// nameMember names the params member that Mcp-Name mirrors, for the
// methods that carry one.
func nameMember(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

func (c *call) checkLegacy() *Error {
	c.era = EraLegacy
	hv, present, repeated := headerValue(c.r.Header, canonicalProtocolVersion)
	switch {
	case repeated:
		return errUnsupportedVersion(hv)
	case !present:
		c.version = DefaultLegacyVersion
		return nil
	case isModernVersion(hv):
		return errEnvelope("the " + hv + " revision needs params._meta with \"" + MetaProtocolVersion + "\" and \"" + MetaClientCapabilities + "\"; this server does not fall back to the 2025 handshake")
	case !isLegacyVersion(hv):
		return errUnsupportedVersion(hv)
	}
	c.version = hv
	return nil
}
