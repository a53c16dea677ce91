// Package client is a small MCP client for the 2026-07-28 revision over
// Streamable HTTP: every request stands alone, carrying the protocol
// version and the client's capabilities in params._meta and the headers
// the transport mirrors (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*), and a server's input_required result is answered by
// retrying the same request with inputResponses and the requestState
// echoed.
//
// Like package mcp, it knows nothing of any product: the binary's
// `kobana-mcp call` is one user of it, and any endpoint served by package
// mcp (or any other 2026-07-28 server that answers in JSON) is another.
// It never opens a stream and never sends initialize.
package client
