// Package oauth is identity over OAuth 2.1 for the MCP endpoints and the
// REST APIs: the signing keys and JWT access tokens of the built-in
// authorization server, and the resource-server side every endpoint runs —
// token verification (built-in or external issuers), RFC 9728 protected
// resource metadata and the 401/403 challenges that send a client to sign
// in or to ask for more scopes.
package oauth
