// Package server is the built-in OAuth 2.1 authorization server: one
// instance on each product listener, its issuer the listener's public base
// URL, granting tokens for that product's two resources — its MCP endpoint
// and its API — and nothing else.
//
// The protocol is github.com/ory/fosite's: the authorization code grant
// with PKCE (S256 only, always required), refresh tokens rotated on every
// use with reuse detection (presenting a retired refresh token, or a used
// code, revokes the whole grant), client authentication (none,
// client_secret_basic, client_secret_post), and revocation (RFC 7009).
// Around it this package adds what fosite lacks:
//
//   - RFC 8414 metadata, at /.well-known/oauth-authorization-server and
//     /.well-known/openid-configuration (the same document);
//   - RFC 8707 resource indicators: a request names at most one resource,
//     one of this product's (the MCP endpoint when it names none); the
//     grant and every token from it are for that resource alone (the
//     JWT's aud), and a token request naming another is invalid_target;
//   - RFC 9207: iss on every authorization response, errors included;
//   - Client ID Metadata Documents: a client_id that is an HTTPS URL is
//     fetched (SSRF-safe, see safehttp), validated and cached;
//   - Dynamic Client Registration (RFC 7591) for older clients;
//   - the sign-in and consent pages (package pages), with server-side
//     sessions, CSRF protection and rate-limited sign-in.
//
// Access tokens are the JWTs of oauth.Issuer (ES256, short-lived, the
// keys published at /.well-known/jwks.json), so oauth.JWTVerifier — every
// resource server — verifies them with no call to this server. Roles are
// not in them: resource servers look the person's role up on every
// request, and in the same read whether the token's grant (its "gid"
// claim, fosite's request id, shared by every token of one authorization)
// was revoked, so revoking a grant — /revoke, or the reuse of a code or
// refresh token — refuses its access tokens at once on every replica.
// Authorization codes and refresh tokens are opaque random strings; the
// Storage keeps only their SHA-256.
//
// Everything is in Storage, shared by replicas, except what each process
// holds in memory: the cache of client metadata documents and, unless
// Config.NewLimiter shares them (in Redis), the rate limits of sign-in,
// registration, the token endpoint and metadata fetches.
//
// Endpoints (see Server.Routes): the metadata documents and
// /.well-known/jwks.json; /authorize, /token, /revoke, /register (where
// a 2025-03-26 client without metadata looks for them); the pages
// /oauth/sign-in and /oauth/consent and their /oauth/style.css.
package server
