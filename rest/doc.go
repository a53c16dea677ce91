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
// # Decoding
//
// The schema is compiled with the Go type into a plan, and a request is
// read in one walk that validates each value as it fills the input struct:
// no intermediate map, no re-encoding. Errors are reported one per field,
// in the words of the santhosh-tekuri/jsonschema validator (its messages
// and format checks are the plan's). A tool call through the bridge hands
// its arguments object over as it is (restbridge.Route.PassArguments) and
// is read by the same walk, each member as the REST request would carry
// it; a REST client's request is read from its path, query string and
// body as ever.
//
// # Strings
//
// Every string input of every operation — path parameters, query values,
// body strings at any depth, object keys included — must be text both
// databases store alike: a NUL character (U+0000, \u0000 in JSON, %00 in
// a URL) is refused, which PostgreSQL would refuse and SQLite keep; so is
// invalid UTF-8 in the path or query string, and in a JSON body an
// unpaired UTF-16 surrogate escape ("\ud800"), which a JSON decoder would
// silently change to U+FFFD. Each is a validation error (422) naming the
// field. A body member given twice is refused the same way rather than
// letting the last one win.
//
// The package knows nothing of any product: error bodies are shaped by the
// API's ErrorRenderer, authorization by its Authorize hook.
package rest
