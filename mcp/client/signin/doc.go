// Package signin is the authorization of an MCP client that runs on the
// person's own machine — a native app (RFC 8252), such as a terminal
// client — as the MCP authorization specification describes it:
//
//  1. Discovery: the endpoint's 401 names its protected resource metadata
//     (RFC 9728) in WWW-Authenticate (ParseChallenge); that document names
//     the authorization server, whose metadata (RFC 8414) gives the
//     endpoints (Discover). A server that does not offer PKCE with S256 is
//     refused.
//  2. Registration: Dynamic Client Registration (RFC 7591) as a public
//     client (token_endpoint_auth_method none) with a loopback redirect.
//     A Client ID Metadata Document is an https URL the client must serve,
//     which a program on a laptop cannot; a server offering only that is
//     refused with a message saying so.
//  3. The authorization code grant with PKCE (S256), the RFC 8707 resource
//     indicator on the authorization and token requests, and a loopback
//     redirect on 127.0.0.1 at a port the kernel picks (RFC 8252 §7.3): the
//     person opens the link in any browser, signs in and allows; the
//     redirect comes back to this process, which checks state and, when the
//     server says it sends one, iss (RFC 9207) before it takes the code.
//  4. The exchange and later refreshes are golang.org/x/oauth2's.
//
// Credentials are what a client keeps between runs: the token (with its
// refresh token) and what refreshing it needs. Where they are kept is the
// caller's choice. Like package mcp, this package knows nothing of any
// product.
package signin
