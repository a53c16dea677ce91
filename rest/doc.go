// Package rest declares each API operation once — route, input type,
// requirement (scopes and permission), MCP annotations and handler — and
// derives from that one declaration the HTTP route, the MCP tool that
// mirrors it (through mcp/restbridge) and the operation's OpenAPI entry.
//
// An operation's input is one flat Go struct: path parameters, query
// parameters and body fields side by side, told apart by an `in:"path"` or
// `in:"query"` tag (untagged fields travel in the body, or in the query
// string for GET and DELETE). Its JSON Schema is generated once and serves
// three purposes: the MCP tool's inputSchema, the validation of every REST
// request, and the OpenAPI parameters and request body. A tool therefore
// cannot accept what its endpoint refuses, or the reverse.
//
// The package knows nothing of any product: error bodies are shaped by the
// API's ErrorRenderer, authorization by its Authorize hook.
package rest
