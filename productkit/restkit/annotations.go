package restkit

import "github.com/kobana/kobana-mcp/mcp"

// The annotation presets every operation picks from. rest makes each
// operation set all four MCP hints, and these spell the three kinds of
// operation the products have, in one place, so that two products never
// disagree on what "a write" means. openWorldHint is false on all of them:
// a tool of ours acts on the product's own data, and a webhook test or
// replay sending a request out is already destructive (docs/decisions.md
// "Confirmation of destructive tools").

// ReadOnly is a read: it changes nothing, so it may be repeated freely.
func ReadOnly() mcp.ToolAnnotations {
	return annotations(true, false, true)
}

// Write is an ordinary write: it creates or changes data of the caller's
// tenant, and nothing it does is hard to take back. idempotent says whether
// repeating it with the same arguments has no further effect (an update)
// or does it again (a create).
func Write(idempotent bool) mcp.ToolAnnotations {
	return annotations(false, false, idempotent)
}

// Destructive is a write the person must confirm through MCP: it deletes,
// sends something out, rotates a secret or changes where data goes.
// idempotent as for Write (a delete is; a test delivery or a replay is
// not).
func Destructive(idempotent bool) mcp.ToolAnnotations {
	return annotations(false, true, idempotent)
}

func annotations(readOnly, destructive, idempotent bool) mcp.ToolAnnotations {
	return mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(readOnly), DestructiveHint: mcp.Bool(destructive),
		IdempotentHint: mcp.Bool(idempotent), OpenWorldHint: mcp.Bool(false)}
}
