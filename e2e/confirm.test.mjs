// End-to-end: confirmation of a destructive tool with the official
// TypeScript SDK v2 client (@modelcontextprotocol/client) against the Inbox
// MCP endpoint of a real `kobana-mcp serve`.
//
// No browser: a developer token (`kobana-mcp token`) stands in for the
// OAuth sign-in that oauth-inbox.test.mjs covers. The test
//   1. starts the server (fresh data dir, free loopback ports), adds two
//      workspaces to the demo organization (`kobana-mcp orgs add-workspace`)
//      so the Inbox may delete one, and mints the demo owner's token;
//   2. on protocol 2026-07-28 with form elicitation, calls workspaces_delete
//      with an elicitation handler that accepts (confirm: true): the SDK
//      answers the server's input_required result and retries, and the
//      workspace is deleted exactly once (the retry replayed by hand is
//      refused with -32602);
//   3. the same with a handler that declines: isError, nothing deleted;
//   4. on the 2025 initialize handshake: confirmation_required carrying the
//      approval link (approval_url, approval_id, expires_at), the handler
//      is never asked, nothing deleted.
//
// Run it with ./run.sh, or alone: node --test confirm.test.mjs (it builds the
// server when KOBANA_MCP_BIN is unset). E2E_BUDGET_MS bounds it (default
// 180000).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { startServer, DEMO_EMAIL } from './lib/server.mjs';
import { withTimeout } from './lib/util.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUDGET_MS = Number(process.env.E2E_BUDGET_MS || 180_000);
const DEMO_ORG = 'Demo Company';
const WANT_MESSAGE = "Delete workspace 'TS Accept' (external id ts-accept)? Its inboxes stop receiving e-mail. This cannot be undone.";

const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup step').catch(err => console.error(`e2e cleanup: ${err.message}`));
  }
}
const watchdog = setTimeout(async () => {
  console.error(`\ne2e confirm: exceeded its budget of ${BUDGET_MS} ms; stopping the server and failing.`);
  await cleanup().catch(() => {});
  process.exit(1);
}, BUDGET_MS);
watchdog.unref();
after(async () => {
  await cleanup();
  clearTimeout(watchdog);
});

const s = { bin: null, dataDir: null, inbox: null, base: null, token: null };

function kobana(args) {
  return execFileSync(s.bin, [...args, '--data-dir', s.dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 }).trim();
}

// A client on the Inbox endpoint with the token; `trace` records every POST
// (its JSON-RPC method, headers, body and the answer's resultType).
async function connect({ elicit, modern = true }) {
  const trace = [];
  const fetchTraced = async (url, init = {}) => {
    const res = await fetch(url, init);
    if ((init.method ?? 'GET') === 'POST' && typeof init.body === 'string') {
      const answer = await res.clone().text();
      let method = null, resultType = null, error = null;
      try { method = JSON.parse(init.body).method; } catch {}
      try { const a = JSON.parse(answer); resultType = a.result?.resultType ?? null; error = a.error ?? null; } catch {}
      trace.push({ method, headers: new Headers(init.headers), body: init.body, status: res.status, resultType, error });
    }
    return res;
  };
  const client = new Client({ name: 'kobana-mcp-e2e-confirm', version: '1.0.0' }, {
    capabilities: elicit ? { elicitation: { form: {} } } : {},
    ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
  });
  const asked = [];
  if (elicit) {
    client.setRequestHandler('elicitation/create', async request => {
      asked.push(request.params);
      return elicit(request.params);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(s.inbox), {
    requestInit: { headers: { Authorization: `Bearer ${s.token}` } },
    fetch: fetchTraced,
  });
  await withTimeout(client.connect(transport), 20_000, 'client.connect()');
  cleanups.push(() => client.close());
  return { client, trace, asked };
}

function text(result) {
  return (result.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}

async function workspaceExists(client, id) {
  const r = await withTimeout(client.callTool({ name: 'workspaces_get', arguments: { id } }), 15_000, `workspaces_get ${id}`);
  if (!r.isError) return true;
  assert.match(text(r), /"not_found"/, `workspaces_get ${id}: ${text(r)}`);
  return false;
}

test('setup: server, two extra workspaces, a developer token', { timeout: 200_000 }, async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'kobana-e2e-confirm-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  s.bin = process.env.KOBANA_MCP_BIN;
  if (!s.bin) {
    s.bin = path.join(work, 'kobana-mcp');
    const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` };
    execFileSync('go', ['build', '-o', s.bin, './cmd/kobana-mcp'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 180_000 });
    watchdog.refresh();
  }
  s.dataDir = path.join(work, 'data');
  const server = await startServer({ bin: s.bin, dataDir: s.dataDir });
  cleanups.push(() => server.stop());
  s.inbox = server.endpoints().inbox.url;
  s.base = new URL(s.inbox).origin;
  for (const [label, ext] of [['TS Accept', 'ts-accept'], ['TS Decline', 'ts-decline']]) {
    kobana(['orgs', 'add-workspace', '--org', DEMO_ORG, '--label', label, '--external-id', ext]);
  }
  s.token = kobana(['token', '--product', 'inbox', '--user', DEMO_EMAIL, '--inbox-public-url', s.base]);
  assert.match(s.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the token command prints a JWT');
});

test('accepting the confirmation deletes the workspace exactly once', { timeout: 60_000 }, async t => {
  assert.ok(s.token, 'setup failed');
  const { client, trace, asked } = await connect({ elicit: () => ({ action: 'accept', content: { confirm: true } }) });
  assert.equal(client.getNegotiatedProtocolVersion?.(), '2026-07-28');

  const result = await withTimeout(client.callTool({ name: 'workspaces_delete', arguments: { id: 'ts-accept' } }), 20_000, 'tools/call workspaces_delete');
  assert.notEqual(result.isError, true, `isError: ${text(result)}`);
  assert.equal(text(result), '{"status":204}');
  assert.equal(asked.length, 1, 'the elicitation handler is asked once');
  assert.equal(asked[0].message, WANT_MESSAGE);
  assert.equal(asked[0].mode ?? 'form', 'form');
  assert.equal(asked[0].requestedSchema?.properties?.confirm?.type, 'boolean');

  const calls = trace.filter(e => e.method === 'tools/call');
  assert.deepEqual(calls.map(e => e.resultType), ['input_required', 'complete'], 'first call asks, the retry completes');
  const retry = calls[1];
  const params = JSON.parse(retry.body).params;
  assert.equal(typeof params.requestState, 'string', 'the retry echoes requestState');
  assert.deepEqual(params.inputResponses?.confirm, { action: 'accept', content: { confirm: true } });
  t.diagnostic(`wire: ${trace.map(e => `${e.method}→${e.resultType ?? e.error?.code ?? e.status}`).join(', ')}`);

  assert.equal(await workspaceExists(client, 'ts-accept'), false, 'the workspace is gone');

  // Exactly once: the SDK's own retry, sent again byte for byte, runs nothing.
  const again = await fetch(s.inbox, { method: 'POST', headers: retry.headers, body: retry.body });
  const body = await again.json();
  assert.equal(body.error?.code, -32602, `replayed retry: ${JSON.stringify(body)}`);
  assert.match(body.error.message, /already used/);
});

test('declining the confirmation deletes nothing', { timeout: 60_000 }, async () => {
  assert.ok(s.token, 'setup failed');
  const { client, asked } = await connect({ elicit: () => ({ action: 'decline' }) });
  const result = await withTimeout(client.callTool({ name: 'workspaces_delete', arguments: { id: 'ts-decline' } }), 20_000, 'tools/call workspaces_delete');
  assert.equal(result.isError, true, `declined: ${text(result)}`);
  assert.match(text(result), /Nothing was done/);
  assert.equal(asked.length, 1);
  assert.equal(await workspaceExists(client, 'ts-decline'), true, 'the workspace is still there');
});

test('a 2025 client cannot confirm: confirmation_required with the approval link, nothing deleted', { timeout: 60_000 }, async () => {
  assert.ok(s.token, 'setup failed');
  let askedLegacy = 0;
  const { client } = await connect({ modern: false, elicit: () => { askedLegacy++; return { action: 'accept', content: { confirm: true } }; } });
  assert.notEqual(client.getNegotiatedProtocolVersion?.(), '2026-07-28');
  const result = await withTimeout(client.callTool({ name: 'workspaces_delete', arguments: { id: 'ts-decline' } }), 20_000, 'tools/call workspaces_delete');
  assert.equal(result.isError, true);
  const err = JSON.parse(text(result)).error;
  assert.equal(err.code, 'confirmation_required');
  // The way forward: the approval link, on the Inbox's own listener.
  assert.match(err.approval_url, /\/approvals\/[^/]+$/);
  assert.equal(err.approval_url.split('/approvals/')[1], err.approval_id);
  assert.ok(Date.parse(err.expires_at) > Date.now(), `expires_at ${err.expires_at}`);
  assert.ok(err.message.includes(err.approval_url), err.message);
  assert.match(err.message, /Do not retry/);
  assert.equal(askedLegacy, 0, 'nobody is asked');
  assert.equal(await workspaceExists(client, 'ts-decline'), true);
});
