// End-to-end: a real MCP client (the official TypeScript SDK v2,
// @modelcontextprotocol/client) signs in to the Inbox MCP endpoint of a real
// `kobana-mcp serve` through the built-in OAuth authorization server, with
// headless Chromium playing the person, and then uses the endpoint.
//
//   1. start the server (fresh data dir, free loopback ports) and read its
//      endpoints and the demo owner's credentials from stdout;
//   2. check the discovery chain by hand (precise messages when a piece is missing);
//   3. sign in registering by Client ID Metadata Document (served by this test
//      over https on loopback; the server runs with its dev flag allowing
//      loopback metadata documents), then list and call tools;
//   4. the same registering by Dynamic Client Registration;
//   5. the Inbox's access token must be refused by the Dunning endpoint.
//
// Run it with ./run.sh (it installs what is missing and builds the server).
// Environment: KOBANA_MCP_BIN (a built server; else this file builds one),
// E2E_ARTIFACTS_DIR (default <repo>/test-artifacts/e2e), E2E_BUDGET_MS
// (whole-run bound, default 180000), E2E_EMAIL / E2E_PASSWORD (override the
// credentials read from stdout), E2E_CIMD_HTTP=1 (publish the metadata
// document over plain http and hand its URL to the SDK as a ready client_id,
// for a server whose dev flag accepts only http).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

import { startServer, waitForCredentials, DEMO_EMAIL } from './lib/server.mjs';
import { startCallbackServer, startMetadataServer, makeTestCA } from './lib/loopback.mjs';
import { launchBrowser, signInAndAllow } from './lib/browser.mjs';
import { BrowserOAuthProvider } from './lib/provider.mjs';
import { withTimeout, errText } from './lib/util.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR || path.join(ROOT, 'test-artifacts', 'e2e');
const BUDGET_MS = Number(process.env.E2E_BUDGET_MS || 180_000);
const DEV_FLAG = '--oauth-dev-allow-insecure-client-metadata';
const DEV_ENV = 'KOBANA_OAUTH_DEV_ALLOW_INSECURE_CLIENT_METADATA';
const CIMD_HTTP = process.env.E2E_CIMD_HTTP === '1';
const HTTP_TIMEOUT_MS = 10_000;

const s = {
  server: null, urls: null, creds: null, work: null, tls: null, tlsError: null,
  devFlagUnknown: false, discovery: null, tokens: {},
  cleanups: [],
};
const art = name => path.join(ARTIFACTS, name);

// The whole file is bounded: past the budget, clean up and exit non-zero
// rather than hang (node --test would otherwise wait for open handles).
const watchdog = setTimeout(async () => {
  console.error(`\ne2e: the whole run exceeded its budget of ${BUDGET_MS} ms; stopping the server and Chromium and failing.`);
  await cleanup().catch(() => {});
  process.exit(1);
}, BUDGET_MS);
watchdog.unref();

async function cleanup() {
  while (s.cleanups.length) {
    const fn = s.cleanups.pop();
    await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup step').catch(err => console.error(`e2e cleanup: ${err.message}`));
  }
}
after(async () => {
  await cleanup();
  clearTimeout(watchdog);
});

function fetchT(url, init = {}) {
  return withTimeout(fetch(url, { ...init, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) }), HTTP_TIMEOUT_MS + 1000, `${init.method ?? 'GET'} ${url}`);
}

// An MCP request any era of the server answers without prior state.
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'kobana-mcp-e2e-raw', version: '1.0.0' } },
});
function postMCP(url, token) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetchT(url, { method: 'POST', headers, body: INITIALIZE });
}

// RFC 8414 §3.1: /.well-known/<suffix> inserted before the issuer's path.
function wellKnown(issuer, suffix) {
  const u = new URL(issuer);
  const p = u.pathname.replace(/\/$/, '');
  return `${u.origin}/.well-known/${suffix}${p}`;
}

// ---------------------------------------------------------------------------

test('kobana-mcp serve starts and prints its endpoints and the demo owner sign-in', { timeout: 200_000 }, async t => {
  // e2e/run.sh empties the artifacts folder once per run; each test file
  // only adds its own files, so no test removes another's screenshots.
  mkdirSync(ARTIFACTS, { recursive: true });
  s.work = mkdtempSync(path.join(os.tmpdir(), 'kobana-e2e-'));
  s.cleanups.push(() => rmSync(s.work, { recursive: true, force: true }));

  let bin = process.env.KOBANA_MCP_BIN;
  s.bin = () => bin;
  if (!bin) {
    bin = path.join(s.work, 'kobana-mcp');
    const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` };
    try {
      execFileSync('go', ['build', '-o', bin, './cmd/kobana-mcp'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'pipe'], timeout: 180_000 });
    } catch (err) {
      assert.fail(`go build ./cmd/kobana-mcp failed: ${err.stderr?.toString() || err.message}`);
    }
    watchdog.refresh(); // the budget covers the test, not the build
  }

  try {
    const tlsDir = path.join(s.work, 'tls');
    mkdirSync(tlsDir);
    s.tls = makeTestCA(tlsDir);
  } catch (err) {
    s.tlsError = err.message; // only the CIMD flow needs it; it reports this
  }

  const start = extraArgs => startServer({
    bin,
    dataDir: path.join(s.work, 'data'),
    extraArgs,
    // The dev flag lets the authorization server fetch a Client ID Metadata
    // Document from a loopback (and http) URL; SSL_CERT_FILE makes the Go
    // server trust the test's throwaway CA for the https one.
    env: { [DEV_ENV]: 'true', ...(s.tls ? { SSL_CERT_FILE: s.tls.bundlePath } : {}) },
    logPrefix: art('server'),
  });
  try {
    s.server = await start([`${DEV_FLAG}=true`]);
  } catch (err) {
    if (!err.server?.out.stderr.some(l => l.includes('flag provided but not defined') && l.includes(DEV_FLAG.slice(2)))) throw err;
    // The flag does not exist yet: start with the environment variable only,
    // so that everything else can still be checked; the CIMD test reports it.
    s.devFlagUnknown = true;
    rmSync(path.join(s.work, 'data'), { recursive: true, force: true });
    s.server = await start([]);
  }
  s.cleanups.push(() => s.server.stop());
  t.diagnostic(s.devFlagUnknown
    ? `NOTE: kobana-mcp serve does not know ${DEV_FLAG}; started with ${DEV_ENV}=true only`
    : `started with ${DEV_FLAG}=true and ${DEV_ENV}=true`);

  const eps = s.server.endpoints();
  s.urls = { inbox: eps.inbox.url, dunning: eps.dunning.url, kadu: eps.kadu.url };
  for (const [k, v] of Object.entries(s.urls)) assert.match(v, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, `${k} endpoint URL`);

  const env = process.env.E2E_EMAIL && process.env.E2E_PASSWORD
    ? { email: process.env.E2E_EMAIL, password: process.env.E2E_PASSWORD } : null;
  s.creds = env ?? await waitForCredentials(s.server, 5000);
  assert.ok(s.creds, `the server printed no demo owner sign-in on first start (looked for a line with an email such as ${DEMO_EMAIL} and a password token; adjust parseDemoCredentials in e2e/lib/server.mjs if the wording changed)\n${s.server.describe()}`);
  assert.equal(s.creds.email, DEMO_EMAIL, 'the demo owner email');
});

test('OAuth discovery: 401 → protected resource metadata → authorization server metadata', { timeout: 30_000 }, async () => {
  assert.ok(s.server, 'not attempted: the server did not start');
  const d = { problems: [] };
  s.discovery = d;
  const problem = msg => { d.problems.push(msg); };
  // Before failing, say whether the authorization server itself is mounted on
  // the Inbox listener yet (the two are built separately).
  const report = async () => {
    if (!d.as && !d.asMetadataUrl) {
      const url = `${new URL(s.urls.inbox).origin}/.well-known/oauth-authorization-server`;
      const r = await fetchT(url).catch(err => ({ status: `no answer (${err.message})` }));
      problem(r.status === 200
        ? `(for reference: ${url} answers 200 — the authorization server is mounted)`
        : `(for reference: ${url} answers HTTP ${r.status} — the authorization server (oauth/server) is not mounted on the Inbox listener yet)`);
    }
    assert.fail(`the Inbox is not ready for OAuth sign-in:\n  - ${d.problems.join('\n  - ')}`);
  };

  const res = await postMCP(s.urls.inbox);
  d.challenge = res.headers.get('www-authenticate');
  if (res.status !== 401) {
    problem(`POST ${s.urls.inbox} without a token answered HTTP ${res.status}, want 401: the resource-server check (oauth.ResourceServer) is not wired into the Inbox MCP endpoint yet`);
    return await report();
  }
  const rm = /resource_metadata="([^"]+)"/.exec(d.challenge ?? '');
  if (!rm) {
    problem(`the 401 from ${s.urls.inbox} has no resource_metadata in WWW-Authenticate (got: ${d.challenge ?? 'no header'})`);
    return await report();
  }
  d.resourceMetadataUrl = rm[1];
  const prmRes = await fetchT(d.resourceMetadataUrl);
  if (prmRes.status !== 200) {
    problem(`GET ${d.resourceMetadataUrl} (protected resource metadata) answered HTTP ${prmRes.status}, want 200`);
    return await report();
  }
  d.prm = await prmRes.json();
  if (d.prm.resource !== s.urls.inbox) problem(`protected resource metadata: resource is ${JSON.stringify(d.prm.resource)}, want ${s.urls.inbox}`);
  if (!d.prm.authorization_servers?.length) {
    problem('protected resource metadata lists no authorization_servers');
    return await report();
  }
  d.issuer = d.prm.authorization_servers[0];
  d.asMetadataUrl = wellKnown(d.issuer, 'oauth-authorization-server');
  const asRes = await fetchT(d.asMetadataUrl);
  if (asRes.status !== 200) {
    problem(`GET ${d.asMetadataUrl} answered HTTP ${asRes.status}, want 200: no OAuth authorization server metadata — oauth/server is not mounted on the Inbox listener yet`);
    return await report();
  }
  d.as = await asRes.json();
  if (d.as.issuer !== d.issuer) problem(`authorization server metadata: issuer is ${JSON.stringify(d.as.issuer)}, want ${d.issuer} (RFC 8414 §3.3)`);
  for (const f of ['authorization_endpoint', 'token_endpoint']) if (!d.as[f]) problem(`authorization server metadata has no ${f}`);
  if (!d.as.code_challenge_methods_supported?.includes('S256')) problem('authorization server metadata: code_challenge_methods_supported lacks S256');
  if (!d.as.registration_endpoint) problem('authorization server metadata has no registration_endpoint (Dynamic Client Registration)');
  if (d.as.client_id_metadata_document_supported !== true) problem('authorization server metadata: client_id_metadata_document_supported is not true (Client ID Metadata Documents)');
  if (d.problems.length) await report();
});

function requireReady(what) {
  assert.ok(s.server, `${what}: not attempted: the server did not start`);
  assert.ok(s.creds, `${what}: not attempted: no demo owner credentials were printed`);
  assert.ok(s.discovery?.as, `${what}: not attempted: the discovery chain is incomplete:\n  - ${(s.discovery?.problems ?? ['discovery did not run']).join('\n  - ')}`);
}

// signIn runs the whole interactive flow with the SDK and uses the endpoint.
async function signIn(t, mode) {
  const d = s.discovery;
  const trace = [];
  const tracingFetch = async (url, init = {}) => {
    const method = init.method ?? (url instanceof Request ? url.method : 'GET');
    const href = String(url instanceof Request ? url.url : url);
    try {
      const res = await fetch(url, init);
      trace.push({ method, url: href, status: res.status });
      return res;
    } catch (err) {
      trace.push({ method, url: href, error: err.message });
      throw err;
    }
  };
  const traceText = () => trace.map(e => `    ${e.method} ${e.url} → ${e.status ?? e.error}`).join('\n');
  const saveTrace = () => writeFileSync(art(`${mode}-http-trace.json`), JSON.stringify(trace, null, 2));
  const shots = { signIn: art(`${mode}-1-sign-in.png`), consent: art(`${mode}-2-consent.png`), failure: art(`${mode}-failure.png`) };

  const cb = await startCallbackServer();
  s.cleanups.push(() => cb.close());
  let metadata = null;
  let metadataUrl;
  if (mode === 'cimd') {
    metadata = await startMetadataServer(CIMD_HTTP ? {} : { certPem: s.tls.certPem, keyPem: s.tls.keyPem });
    s.cleanups.push(() => metadata.close());
  }
  const browser = await withTimeout(launchBrowser(), 40_000, 'starting headless Chromium');
  s.cleanups.push(() => browser.close());

  const provider = new BrowserOAuthProvider({
    redirectUrl: cb.url,
    clientName: `kobana-mcp e2e (${mode === 'cimd' ? 'Client ID Metadata Document' : 'Dynamic Client Registration'})`,
    onRedirect: url => signInAndAllow(browser.context, url, {
      email: s.creds.email, password: s.creds.password, callbackUrl: cb.url, shots,
      // The pages speak the browser's Brazilian Portuguese and name the
      // client the sign-in is for.
      expect: { signIn: /^Entre para conectar «kobana-mcp e2e \(.+\)» à sua conta «.+»\.$/, consent: /^Permitir acesso\?$/ },
    }),
  });
  if (metadata) {
    metadataUrl = metadata.publish('/clients/kobana-mcp-e2e.json', () => provider.metadataDocument());
    if (CIMD_HTTP) provider.clientInfo = { client_id: metadataUrl }; // the SDK's own CIMD path demands https
    else provider.clientMetadataUrl = metadataUrl;
  }

  // 2026-07-28 for the CIMD run, the 2025 initialize handshake for DCR: both eras.
  const clientOptions = { capabilities: {}, ...(mode === 'cimd' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) };
  const newClient = () => new Client({ name: `kobana-mcp-e2e-${mode}`, version: '1.0.0' }, clientOptions);
  const newTransport = () => new StreamableHTTPClientTransport(new URL(s.urls.inbox), { authProvider: provider, fetch: tracingFetch });

  try {
    // 1. No token: 401 → discovery → registration → authorization URL → browser.
    const client1 = newClient();
    const transport1 = newTransport();
    let connectErr = null;
    try {
      await withTimeout(client1.connect(transport1), 30_000, 'client.connect() without a token');
    } catch (err) { connectErr = err; }
    assert.ok(connectErr, 'client.connect() without a token succeeded: the Inbox MCP endpoint is not protected');
    if (!(connectErr instanceof UnauthorizedError)) {
      assert.fail(`client.connect() without a token should end with UnauthorizedError after redirectToAuthorization; got ${errText(connectErr)}\n  HTTP so far:\n${traceText()}`);
    }
    assert.ok(provider.authorizationUrl, `the SDK never called redirectToAuthorization\n  HTTP so far:\n${traceText()}`);
    const az = provider.authorizationUrl;
    t.diagnostic(`authorization URL: ${az.origin}${az.pathname}?client_id=${az.searchParams.get('client_id')}&…`);
    assert.equal(`${az.origin}${az.pathname}`, d.as.authorization_endpoint, 'authorization URL goes to the advertised authorization_endpoint');
    assert.equal(az.searchParams.get('response_type'), 'code');
    assert.equal(az.searchParams.get('redirect_uri'), cb.url);
    assert.equal(az.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(az.searchParams.get('code_challenge'), 'PKCE code_challenge');
    assert.equal(az.searchParams.get('state'), provider.expectedState);
    assert.equal(az.searchParams.get('resource'), s.urls.inbox, 'RFC 8707 resource indicator is the Inbox MCP URL');
    if (mode === 'cimd') {
      assert.equal(az.searchParams.get('client_id'), metadataUrl, 'client_id is the Client ID Metadata Document URL');
      assert.ok(!trace.some(e => e.url === d.as.registration_endpoint), `CIMD run must not call the registration endpoint\n${traceText()}`);
    } else {
      const reg = trace.find(e => e.url === d.as.registration_endpoint && e.method === 'POST');
      assert.ok(reg && reg.status >= 200 && reg.status < 300, `Dynamic Client Registration: want a 2xx POST ${d.as.registration_endpoint}\n${traceText()}`);
      assert.equal(az.searchParams.get('client_id'), provider.clientInfo?.client_id, 'client_id is the one registration returned');
    }
    assertInOrder(trace, [
      [e => e.url === s.urls.inbox && e.method === 'POST' && e.status === 401, `POST ${s.urls.inbox} → 401`],
      [e => e.url === d.resourceMetadataUrl && e.status === 200, `GET ${d.resourceMetadataUrl} → 200`],
      [e => e.url.startsWith(new URL(d.issuer).origin + '/.well-known/') && e.status === 200, 'GET authorization server metadata → 200'],
    ], traceText);

    // 2. Chromium signs in and allows; the redirect reaches our callback.
    const landedOn = await withTimeout(provider.browserSession, 60_000, 'Chromium signing in and allowing access');
    t.diagnostic(`browser landed on ${landedOn.split('?')[0]}; screenshots ${shots.signIn}, ${shots.consent}`);
    const params = await withTimeout(cb.next(), 10_000, 'the redirect to the local callback');
    assert.equal(params.get('error'), null, `the authorization server redirected with error=${params.get('error')}: ${params.get('error_description')}`);
    assert.equal(params.get('state'), provider.expectedState, 'state echoed on the redirect');
    const code = params.get('code');
    assert.ok(code, 'code on the redirect');
    const iss = params.get('iss');
    if (d.as.authorization_response_iss_parameter_supported || iss !== null) {
      assert.equal(iss, d.as.issuer, 'iss on the redirect (RFC 9207) is the authorization server issuer');
    }
    if (mode === 'cimd') {
      const fetched = metadata.requests.filter(r => r.method === 'GET' && r.path === new URL(metadataUrl).pathname);
      assert.ok(fetched.length > 0, `the authorization server never fetched the Client ID Metadata Document ${metadataUrl}`);
      t.diagnostic(`the authorization server fetched the metadata document ${fetched.length} time(s)`);
    }

    // 3. finishAuth exchanges the code (PKCE) for tokens.
    await withTimeout(transport1.finishAuth(code, iss ?? undefined), 15_000, 'transport.finishAuth(code) — the token exchange');
    await client1.close().catch(() => {});
    const tokens = provider.tokens();
    assert.ok(tokens?.access_token, 'finishAuth saved an access token');
    assert.match(tokens.token_type ?? '', /^bearer$/i, 'token_type');
    assert.ok(trace.some(e => e.url === d.as.token_endpoint && e.method === 'POST' && e.status === 200), `token request: want POST ${d.as.token_endpoint} → 200\n${traceText()}`);
    s.tokens[mode] = tokens.access_token;

    // 4. Connected with the token: tools/list and a tools/call.
    const client2 = newClient();
    await withTimeout(client2.connect(newTransport()), 20_000, 'client.connect() with the access token');
    s.cleanups.push(() => client2.close());
    t.diagnostic(`connected: protocol ${client2.getNegotiatedProtocolVersion?.() ?? '?'}, server ${JSON.stringify(client2.getServerVersion())}`);
    if (!client2.getServerCapabilities()?.tools) {
      t.diagnostic('NOTE: the Inbox advertises no tools capability (no tools yet): tools/list and tools/call not exercised');
    } else {
      const { tools } = await withTimeout(client2.listTools(), 15_000, 'tools/list');
      assert.ok(Array.isArray(tools), 'tools/list result');
      t.diagnostic(`tools/list: ${tools.length} tool(s)`);
      if (tools.length === 0) {
        t.diagnostic('NOTE: tools/list returned no tools for the demo owner: tools/call not exercised');
      } else {
        const tool = pickTool(tools);
        const args = argumentsFor(tool);
        const result = await withTimeout(client2.callTool({ name: tool.name, arguments: args }), 20_000, `tools/call ${tool.name}`);
        assert.ok(Array.isArray(result.content) || result.structuredContent, `tools/call ${tool.name}: a CallToolResult`);
        const noRequired = !(tool.inputSchema?.required?.length);
        if (noRequired) assert.notEqual(result.isError, true, `tools/call ${tool.name} (no required arguments) returned isError: ${JSON.stringify(result.content).slice(0, 400)}`);
        t.diagnostic(`tools/call ${tool.name}(${JSON.stringify(args)}): isError=${result.isError === true}`);
      }
    }
    await client2.close().catch(() => {});
    assertInOrder(trace, [
      [e => e.url === d.as.token_endpoint && e.status === 200, `POST ${d.as.token_endpoint} → 200`],
      [e => e.url === s.urls.inbox && e.method === 'POST' && e.status === 200, `POST ${s.urls.inbox} with the token → 200`],
    ], traceText);
  } finally {
    saveTrace();
    await browser.close();
  }
}

function assertInOrder(trace, steps, traceText) {
  let i = 0;
  for (const [pred, label] of steps) {
    while (i < trace.length && !pred(trace[i])) i++;
    assert.ok(i < trace.length, `expected, in order, ${steps.map(s => s[1]).join(' ; ')} — missing: ${label}\n  HTTP seen:\n${traceText()}`);
    i++;
  }
}

// pickTool prefers a read-only tool with no required arguments, then any
// non-destructive tool with no required arguments, then any read-only tool.
function pickTool(tools) {
  const noReq = t => !(t.inputSchema?.required?.length);
  const ro = t => t.annotations?.readOnlyHint === true;
  const safe = t => t.annotations?.destructiveHint !== true;
  return tools.find(t => ro(t) && noReq(t)) ?? tools.find(t => safe(t) && noReq(t)) ?? tools.find(ro) ?? tools.find(safe) ?? tools[0];
}

// argumentsFor fills required arguments with plausible placeholder values.
function argumentsFor(tool) {
  const props = tool.inputSchema?.properties ?? {};
  const args = {};
  for (const name of tool.inputSchema?.required ?? []) {
    const p = props[name] ?? {};
    if (p.enum?.length) args[name] = p.enum[0];
    else if (p.type === 'integer' || p.type === 'number') args[name] = p.minimum ?? 1;
    else if (p.type === 'boolean') args[name] = false;
    else if (p.type === 'array') args[name] = [];
    else if (p.type === 'object') args[name] = {};
    else args[name] = 'e2e';
  }
  return args;
}

test('sign in with a Client ID Metadata Document, then tools/list and tools/call', { timeout: 120_000 }, async t => {
  requireReady('CIMD sign-in');
  assert.ok(!s.devFlagUnknown, `kobana-mcp serve does not know ${DEV_FLAG} yet (it exited with "flag provided but not defined"); the server was started with ${DEV_ENV}=true only`);
  if (!CIMD_HTTP) assert.ok(s.tls, `no test certificate for the https metadata URL: ${s.tlsError}`);
  await signIn(t, 'cimd');
});

test('sign in with Dynamic Client Registration, then tools/list and tools/call', { timeout: 120_000 }, async t => {
  requireReady('DCR sign-in');
  await signIn(t, 'dcr');
});

test('the access token issued for the Inbox is refused by the Dunning endpoint', { timeout: 30_000 }, async t => {
  const token = s.tokens.dcr ?? s.tokens.cimd;
  assert.ok(token, 'not attempted: neither sign-in produced an Inbox access token');
  const inbox = await postMCP(s.urls.inbox, token);
  assert.equal(inbox.status, 200, `control: the same request with the token to the Inbox should succeed; got HTTP ${inbox.status}: ${(await inbox.text()).slice(0, 300)}`);
  const res = await postMCP(s.urls.dunning, token);
  const www = res.headers.get('www-authenticate') ?? '';
  assert.equal(res.status, 401, `Dunning accepted or mis-answered an Inbox token: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  assert.match(www, /error="invalid_token"/, `Dunning's 401 must say error="invalid_token"; WWW-Authenticate: ${www}`);
  t.diagnostic(`Dunning: HTTP 401, WWW-Authenticate: ${www}`);
});

test('a token issued for the Dunning endpoint is refused by the Inbox endpoint', { timeout: 30_000 }, async t => {
  assert.ok(s.server, 'not attempted: the server did not start');
  // A developer token, signed by the same keys as a sign-in would be, for
  // the Dunning MCP endpoint (issuer and audience: Dunning).
  const dunningOrigin = new URL(s.urls.dunning).origin;
  const token = execFileSync(s.bin(), ['token', '--product', 'dunning', '--user', DEMO_EMAIL,
    '--data-dir', path.join(s.work, 'data'), '--dunning-public-url', dunningOrigin], { timeout: 20_000 }).toString().trim();
  const control = await postMCP(s.urls.dunning, token);
  assert.equal(control.status, 200, `control: Dunning should accept its own token; got HTTP ${control.status}`);
  const res = await postMCP(s.urls.inbox, token);
  const www = res.headers.get('www-authenticate') ?? '';
  assert.equal(res.status, 401, `the Inbox accepted or mis-answered a Dunning token: HTTP ${res.status}`);
  assert.match(www, /error="invalid_token"/, `the Inbox's 401 must say error="invalid_token"; WWW-Authenticate: ${www}`);
  t.diagnostic(`Inbox: HTTP 401, WWW-Authenticate: ${www}`);
});
