// The TypeScript SDK v1 client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) on the Inbox, Dunning and Kadu endpoints of a real
// `kobana-mcp serve`. v1 knows no 2026-07-28: its initialize offers
// 2025-11-25, which no endpoint speaks, so the server must
// counter-offer 2025-06-18 and the client must carry on at 2025-06-18
// (MCP-Protocol-Version on every later request). Then the calls of
// exerciseInbox, exerciseDunning or exerciseKadu (lib/harness.mjs); the
// Inbox's and Dunning's destructive tools answer confirmation_required
// carrying the approval link without asking, Kadu's kadu_tasks_run the
// approval link as a normal result (nothing runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import {
  budget, setup, recordingFetch, exerciseInbox, exerciseDunning, exerciseKadu, elicitor, withTimeout, wireText, assertLegacyHandshake, STEP_MS,
} from './lib/harness.mjs';

const LABEL = 'ts-sdk-v1';
const { cleanups, watchdog } = budget(LABEL);
let s = null;

test('setup: server, a workspace to delete, a developer token', { timeout: 200_000 }, async () => {
  s = await setup({ label: LABEL, cleanups, watchdog, workspaces: ['v1'] });
});

// connect opens a v1 client on url with token and checks the counter-offer
// on the wire and the server's name.
async function connect({ url, token, serverName }) {
  const trace = [];
  const elicit = elicitor();
  const client = new Client({ name: `kobana-mcp-e2e-${LABEL}`, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, request => elicit.handle(request.params));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch(trace),
  });
  await withTimeout(client.connect(transport, { timeout: STEP_MS }), STEP_MS + 5000, 'client.connect()');
  cleanups.push(() => client.close());
  assert.equal(transport.protocolVersion, '2025-06-18', 'the transport carries on at the counter-offered version');
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  assert.equal(client.getServerVersion()?.name, serverName);
  return { client, trace, elicit };
}

test('TypeScript SDK v1 client: offers 2025-11-25, is counter-offered 2025-06-18', { timeout: 90_000 }, async t => {
  assert.ok(s, 'setup failed');
  assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25', 'the pinned v1 SDK offers 2025-11-25 (update this test with the pin)');
  const { client, trace, elicit } = await connect({ url: s.inbox, token: s.token, serverName: 'kobana-autonomous-inbox' });
  await exerciseInbox(t, client, { modern: false, elicit, deleteId: 'v1', trace });
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  t.diagnostic(`wire: ${wireText(trace)}`);
  await withTimeout(client.close(), 10_000, 'client.close()');
});

test('TypeScript SDK v1 client on Dunning: counter-offered 2025-06-18', { timeout: 90_000 }, async t => {
  assert.ok(s, 'setup failed');
  const { client, trace, elicit } = await connect({ url: s.dunning, token: s.dunningToken, serverName: 'kobana-dunning' });
  await exerciseDunning(t, client, { modern: false, elicit, ext: 'v1', trace });
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  t.diagnostic(`wire: ${wireText(trace)}`);
  await withTimeout(client.close(), 10_000, 'client.close()');
});

test('TypeScript SDK v1 client on Kadu: counter-offered 2025-06-18, the approval link', { timeout: 90_000 }, async t => {
  assert.ok(s, 'setup failed');
  const { client, trace, elicit } = await connect({ url: s.kadu, token: s.kaduToken, serverName: 'kadu' });
  await exerciseKadu(t, client, { canElicit: false, elicit, label: 'v1', url: s.kadu, trace });
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  t.diagnostic(`wire: ${wireText(trace)}`);
  await withTimeout(client.close(), 10_000, 'client.close()');
});
