// Package mcp serves the Model Context Protocol over stateless Streamable
// HTTP, speaking the 2026-07-28 revision and the 2025-06-18 and 2025-03-26
// revisions on one endpoint.
//
// The package knows nothing of any product: a server is a [Catalog] of tools,
// resources, templates and prompts, plus [Options] that name the server and
// plug in authentication, authorization, rate limiting and the sealing of
// multi-round-trip state. Everything a request needs travels in the request;
// nothing is kept between requests, so any number of replicas can serve one
// endpoint.
//
// The handler answers one JSON-RPC message per POST with one JSON document.
// It never opens a server-to-client stream and never mints a session id:
// 2026-07-28 clients discover the server with server/discover and carry their
// version and capabilities in params._meta; 2025 clients use initialize.
package mcp
