// Why this file exists: the official conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) has no option to send an Authorization header, and the product endpoints (the
// Inbox, Dunning) answer 401 to every request without a bearer token. run-product.sh loads this module into
// the suite's Node process (NODE_OPTIONS=--require) so that every request the suite makes to the
// endpoint under test carries `Authorization: Bearer <token>`.
//
// The suite reaches the server through three HTTP stacks, and each is wrapped here:
//   1. globalThis.fetch (the suite's raw probes and the MCP TypeScript SDK client it drives);
//   2. node:http request/get (raw probes such as the 2025 header checks; node:https likewise);
//   3. undici's global dispatcher (the suite imports `request` from the undici package for the
//      DNS-rebinding probes, which set their own Host header; fetch also dispatches through it).
// The header is added only to requests whose connection goes to the configured origin (never to
// any other host), and only when the request carries no Authorization header of its own.
//
// Environment (both required; without them this module refuses to load, so a misconfigured run
// fails at once instead of producing a wall of 401s):
//   KOBANA_CONFORMANCE_TOKEN   the bearer token (from `kobana-mcp token`)
//   KOBANA_CONFORMANCE_ORIGIN  the origin of the endpoint under test, e.g. http://127.0.0.1:8081
'use strict';

const http = require('node:http');
const https = require('node:https');
const { syncBuiltinESMExports, createRequire } = require('node:module');

const token = process.env.KOBANA_CONFORMANCE_TOKEN;
const originText = process.env.KOBANA_CONFORMANCE_ORIGIN;
if (!token || !originText) {
  throw new Error('auth-preload: set KOBANA_CONFORMANCE_TOKEN and KOBANA_CONFORMANCE_ORIGIN');
}
const target = new URL(originText);
if (target.protocol !== 'http:' && target.protocol !== 'https:') {
  throw new Error(`auth-preload: KOBANA_CONFORMANCE_ORIGIN must be an http(s) origin, got ${originText}`);
}
const defaultPort = (protocol) => (protocol === 'https:' ? '443' : '80');
const targetHost = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const targetPort = target.port || defaultPort(target.protocol);
const bearer = `Bearer ${token}`;

// Counts what was authorized, for the debugging line printed at exit with KOBANA_CONFORMANCE_DEBUG=1.
const counts = { fetch: 0, http: 0, undici: 0 };
if (process.env.KOBANA_CONFORMANCE_DEBUG === '1') {
  process.on('exit', () => process.stderr.write(`auth-preload: authorized ${JSON.stringify(counts)}\n`));
}

function isTarget(hostname, port, protocol) {
  const host = String(hostname ?? '').replace(/^\[|\]$/g, '').toLowerCase();
  const p = String(port || defaultPort(protocol || 'http:'));
  return host === targetHost && p === targetPort;
}

// --- 1. fetch ---------------------------------------------------------------------------------
const originalFetch = globalThis.fetch;
globalThis.fetch = function fetchWithAuth(input, init) {
  try {
    const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    if (isTarget(url.hostname, url.port, url.protocol)) {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (!headers.has('authorization')) {
        headers.set('authorization', bearer);
        counts.fetch++;
        init = { ...init, headers };
      }
    }
  } catch {
    // Not a URL we understand: pass it through untouched and let fetch report it.
  }
  return originalFetch.call(this, input, init);
};

// --- 2. node:http -----------------------------------------------------------------------------
function hasHeader(headers, name) {
  if (!headers) return false;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return true;
    return false;
  }
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

// hostOnly drops a port from a `host` option ("127.0.0.1:8081", "[::1]:8081"), leaving "::1" alone.
function hostOnly(host) {
  if (host == null) return undefined;
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (m) return m[1];
  return (host.match(/:/g) ?? []).length === 1 ? host.replace(/:\d+$/, '') : host;
}

function wrapHttp(original, defaultProtocol) {
  return function requestWithAuth(...args) {
    // Signatures: (url[, options][, cb]) and (options[, cb]).
    let url = null;
    let options = null;
    let i = 0;
    if (typeof args[0] === 'string' || args[0] instanceof URL) {
      url = new URL(String(args[0]));
      i = 1;
    }
    if (args[i] && typeof args[i] === 'object') options = args[i];
    const hostname = options?.hostname ?? hostOnly(options?.host) ?? url?.hostname ?? 'localhost';
    const port = options?.port ?? url?.port;
    const protocol = options?.protocol ?? url?.protocol ?? defaultProtocol;
    if (isTarget(hostname, port, protocol) && !hasHeader(options?.headers, 'authorization')) {
      counts.http++;
      const headers = Array.isArray(options?.headers)
        ? [...options.headers, 'Authorization', bearer]
        : { ...(options?.headers ?? {}), Authorization: bearer };
      const next = { ...(options ?? {}), headers };
      if (options) args[i] = next;
      else args.splice(i, 0, next);
    }
    return original.apply(this, args);
  };
}
http.request = wrapHttp(http.request, 'http:');
http.get = wrapHttp(http.get, 'http:');
https.request = wrapHttp(https.request, 'https:');
https.get = wrapHttp(https.get, 'https:');
syncBuiltinESMExports(); // `import { request } from 'node:http'` sees the wrapped functions too

// --- 3. undici's global dispatcher ---------------------------------------------------------------
// The suite's own undici package (resolved from the suite, so the same copy it imports); its
// setGlobalDispatcher also serves Node's built-in fetch (both read Symbol.for('undici.globalDispatcher.1')).
const suiteRequire = createRequire(require.resolve('@modelcontextprotocol/conformance/package.json', { paths: [__dirname] }));
const undici = suiteRequire('undici');

function undiciHeadersWithAuth(headers) {
  if (headers == null) return { authorization: bearer };
  if (Array.isArray(headers)) {
    // Flat [name, value, ...] or a list of [name, value] pairs.
    const flat = Array.isArray(headers[0]) ? headers.flat() : headers;
    return hasHeader(flat, 'authorization') ? headers : [...flat, 'authorization', bearer];
  }
  if (typeof headers[Symbol.iterator] === 'function') {
    const flat = [];
    for (const [k, v] of headers) flat.push(k, v);
    return hasHeader(flat, 'authorization') ? headers : [...flat, 'authorization', bearer];
  }
  return hasHeader(headers, 'authorization') ? headers : { ...headers, authorization: bearer };
}

const authInterceptor = (dispatch) => (opts, handler) => {
  try {
    const origin = new URL(String(opts.origin));
    if (isTarget(origin.hostname, origin.port, origin.protocol)) {
      const headers = undiciHeadersWithAuth(opts.headers);
      if (headers !== opts.headers) {
        counts.undici++;
        opts = { ...opts, headers };
      }
    }
  } catch {
    // An origin we cannot parse is not ours.
  }
  return dispatch(opts, handler);
};
undici.setGlobalDispatcher(undici.getGlobalDispatcher().compose(authInterceptor));

module.exports = { isTarget };
