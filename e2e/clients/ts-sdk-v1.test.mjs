// The TypeScript SDK v1 client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) on the Inbox endpoint of a real `kobana-mcp serve`.
// v1 knows no 2026-07-28: its initialize offers 2025-11-25, which the
// Inbox does not speak, so the server must counter-offer 2025-06-18 and the
// client must carry on at 2025-06-18 (MCP-Protocol-Version on every later
// request). Then the calls of exerciseInbox (lib/harness.mjs); the
// destructive tool answers confirmation_required without asking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import {
  budget, setup, recordingFetch, exerciseInbox, elicitor, withTimeout, wireText, assertLegacyHandshake, STEP_MS,
} from './lib/harness.mjs';

const LABEL = 'ts-sdk-v1';
const { cleanups, watchdog } = budget(LABEL);
let s = null;

test('setup: server, a workspace to delete, a developer token', { timeout: 200_000 }, async () => {
  s = await setup({ label: LABEL, cleanups, watchdog, workspaces: ['v1'] });
});

test('TypeScript SDK v1 client: offers 2025-11-25, is counter-offered 2025-06-18', { timeout: 90_000 }, async t => {
  assert.ok(s, 'setup failed');
  assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25', 'the pinned v1 SDK offers 2025-11-25 (update this test with the pin)');
  const trace = [];
  const elicit = elicitor();
  const client = new Client({ name: `kobana-mcp-e2e-${LABEL}`, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, request => elicit.handle(request.params));
  const transport = new StreamableHTTPClientTransport(new URL(s.inbox), {
    requestInit: { headers: { Authorization: `Bearer ${s.token}` } },
    fetch: recordingFetch(trace),
  });
  await withTimeout(client.connect(transport, { timeout: STEP_MS }), STEP_MS + 5000, 'client.connect()');
  cleanups.push(() => client.close());
  assert.equal(transport.protocolVersion, '2025-06-18', 'the transport carries on at the counter-offered version');
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  assert.equal(client.getServerVersion()?.name, 'kobana-autonomous-inbox');

  await exerciseInbox(t, client, { modern: false, elicit, deleteId: 'v1', trace });
  assertLegacyHandshake(trace, { offered: '2025-11-25', answered: '2025-06-18' });
  t.diagnostic(`wire: ${wireText(trace)}`);
  await withTimeout(client.close(), 10_000, 'client.close()');
});
