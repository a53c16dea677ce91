// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in package-lock.json) on the Inbox, Dunning and Kadu endpoints of a
// real `kobana-mcp serve`, with a developer token for each, three ways:
//   1. pinned to 2026-07-28 (versionNegotiation { pin }): server/discover;
//   2. auto mode: server/discover must win, with no fallback to initialize;
//   3. the 2025 handshake at 2025-06-18 (supportedProtocolVersions).
// On the Inbox each makes the calls of exerciseInbox (lib/harness.mjs):
// tools, a read tool, resources/templates/prompts/completion (the Inbox's
// real ones; a feature not declared must answer -32601) and the
// destructive tool through the elicitation handler; on Dunning those of
// exerciseDunning (dunning_me, a write, a resource template, prompts,
// dunning_debtors_archive); on Kadu those of exerciseKadu (kadu_me, a task
// created and read, kadu_tasks_run confirmed through the elicitation
// handler on 2026-07-28 and followed to succeeded, an approval link on
// 2025), plus a 2026-07-28 client that declares no elicitation: it gets the
// approval link too, and nothing runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import {
  budget, setup, recordingFetch, exerciseInbox, exerciseDunning, exerciseKadu, elicitor, withTimeout, wireText,
  assertModernHandshake, assertLegacyHandshake, STEP_MS,
} from './lib/harness.mjs';

const LABEL = 'ts-sdk-v2';
const { cleanups, watchdog } = budget(LABEL);
const MODES = {
  pinned: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  auto: { versionNegotiation: { mode: 'auto' } },
  '2025-06-18': { supportedProtocolVersions: ['2025-06-18'] },
};
let s = null;

test('setup: server, workspaces to delete, a developer token', { timeout: 200_000 }, async () => {
  s = await setup({ label: LABEL, cleanups, watchdog, workspaces: Object.keys(MODES).map(m => `v2-${m}`) });
});

// connect opens a v2 client on url with token in the given mode, checks
// the handshake on the wire and the server's name.
// canElicit false opens a client that declares no elicitation capability.
async function connect(t, { url, token, mode, options, serverName, canElicit = true }) {
  const trace = [];
  const elicit = elicitor();
  const client = new Client({ name: `kobana-mcp-e2e-${LABEL}-${mode}`, version: '1.0.0' }, {
    capabilities: canElicit ? { elicitation: { form: {} } } : {},
    ...options,
  });
  if (canElicit) client.setRequestHandler('elicitation/create', request => elicit.handle(request.params));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch(trace),
  });
  await withTimeout(client.connect(transport, { timeout: STEP_MS }), STEP_MS + 5000, `client.connect() (${mode})`);
  cleanups.push(() => client.close());
  const negotiated = client.getNegotiatedProtocolVersion();
  const modern = mode !== '2025-06-18';
  if (modern) {
    assertModernHandshake(trace, negotiated);
  } else {
    assert.equal(negotiated, '2025-06-18', 'negotiated protocol version');
    assertLegacyHandshake(trace, { offered: '2025-06-18', answered: '2025-06-18' });
  }
  assert.equal(client.getServerVersion()?.name, serverName);
  return { client, trace, elicit, modern, negotiated, raw: (method, params) => client.request({ method, params }) };
}

// finish checks the wire after the calls and closes the client.
async function finish(t, { client, trace, modern, negotiated }) {
  if (modern) {
    for (const e of trace) assert.equal(e.header, '2026-07-28', `${e.method} carries MCP-Protocol-Version 2026-07-28`);
  } else {
    assertLegacyHandshake(trace, { offered: '2025-06-18', answered: '2025-06-18' });
  }
  t.diagnostic(`negotiated ${negotiated}; wire: ${wireText(trace)}`);
  await withTimeout(client.close(), 10_000, 'client.close()');
}

for (const [mode, options] of Object.entries(MODES)) {
  test(`TypeScript SDK v2 client, ${mode}`, { timeout: 90_000 }, async t => {
    assert.ok(s, 'setup failed');
    const c = await connect(t, { url: s.inbox, token: s.token, mode, options, serverName: 'kobana-autonomous-inbox' });
    await exerciseInbox(t, c.client, { modern: c.modern, elicit: c.elicit, deleteId: `v2-${mode}`, trace: c.trace, raw: c.raw });
    await finish(t, c);
  });
}

for (const [mode, options] of Object.entries(MODES)) {
  test(`TypeScript SDK v2 client on Dunning, ${mode}`, { timeout: 90_000 }, async t => {
    assert.ok(s, 'setup failed');
    const c = await connect(t, { url: s.dunning, token: s.dunningToken, mode, options, serverName: 'kobana-dunning' });
    await exerciseDunning(t, c.client, { modern: c.modern, elicit: c.elicit, ext: `v2-${mode}`, trace: c.trace, raw: c.raw });
    await finish(t, c);
  });
}

for (const [mode, options] of Object.entries(MODES)) {
  test(`TypeScript SDK v2 client on Kadu, ${mode}`, { timeout: 90_000 }, async t => {
    assert.ok(s, 'setup failed');
    const c = await connect(t, { url: s.kadu, token: s.kaduToken, mode, options, serverName: 'kadu' });
    await exerciseKadu(t, c.client, { canElicit: c.modern, elicit: c.elicit, label: `v2-${mode}`, url: s.kadu, trace: c.trace, raw: c.raw });
    await finish(t, c);
  });
}

test('TypeScript SDK v2 client on Kadu, pinned 2026-07-28 without elicitation: the approval link', { timeout: 90_000 }, async t => {
  assert.ok(s, 'setup failed');
  const mode = 'pinned-no-elicitation';
  const c = await connect(t, { url: s.kadu, token: s.kaduToken, mode, options: MODES.pinned, serverName: 'kadu', canElicit: false });
  await exerciseKadu(t, c.client, { canElicit: false, elicit: c.elicit, label: `v2-${mode}`, url: s.kadu, trace: c.trace, raw: c.raw });
  await finish(t, c);
});
