// The resource, prompt and completion checks of lib/harness.mjs
// (exerciseFeatures), run against the fixture server examples/everything,
// which offers all three. The Inbox offers none of them yet, so against it
// those checks only see them absent; this file proves that the branches
// that list, read, get and complete work with the same clients (TypeScript
// SDK v2 at 2026-07-28 and 2025-06-18, v1), so they will hold when the
// Inbox starts declaring them. The fixture needs no token.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { ROOT, STEP_MS, recordingFetch, exerciseFeatures, withTimeout, wireText } from './lib/harness.mjs';

const work = mkdtempSync(path.join(os.tmpdir(), 'kobana-e2e-fixture-'));
let child = null;
after(() => {
  child?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});
let endpoint = null;

test('setup: examples/everything on a free loopback port', { timeout: 200_000 }, async () => {
  let bin = process.env.EVERYTHING_BIN;
  if (!bin) {
    bin = path.join(work, 'everything');
    const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` };
    execFileSync('go', ['build', '-o', bin, './examples/everything'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 180_000 });
  }
  child = spawn(bin, ['-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill('SIGKILL'));
  endpoint = await withTimeout(new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', chunk => {
      out += chunk;
      const m = out.match(/^MCP endpoint: (\S+)$/m);
      if (m) resolve(m[1]);
    });
    child.on('exit', code => reject(new Error(`examples/everything exited (${code}) before printing its endpoint`)));
  }), 30_000, 'examples/everything prints its endpoint');
});

const CLIENTS = {
  'v2 pinned 2026-07-28': () => [new ClientV2({ name: 'kobana-mcp-e2e-fixture', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }), TransportV2, true],
  'v2 2025-06-18': () => [new ClientV2({ name: 'kobana-mcp-e2e-fixture', version: '1.0.0' }, { supportedProtocolVersions: ['2025-06-18'] }), TransportV2, true],
  v1: () => [new ClientV1({ name: 'kobana-mcp-e2e-fixture', version: '1.0.0' }), TransportV1, false],
};

for (const [name, make] of Object.entries(CLIENTS)) {
  test(`feature checks with the ${name} client on the fixture`, { timeout: 60_000 }, async t => {
    assert.ok(endpoint, 'setup failed');
    const trace = [];
    const [client, Transport, v2] = make();
    const transport = new Transport(new URL(endpoint), { fetch: recordingFetch(trace) });
    await withTimeout(client.connect(transport, { timeout: STEP_MS }), STEP_MS + 5000, 'client.connect()');
    try {
      const caps = client.getServerCapabilities() ?? {};
      assert.ok(caps.resources && caps.prompts && caps.completions, `the fixture declares resources, prompts and completions: ${JSON.stringify(caps)}`);
      await exerciseFeatures(t, client, { trace, raw: v2 ? (method, params) => client.request({ method, params }) : undefined });
      for (const method of ['resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete']) {
        assert.ok(trace.some(e => e.method === method && e.status === 200 && e.error === null), `no successful ${method}: ${wireText(trace)}`);
      }
      t.diagnostic(`wire: ${wireText(trace)}`);
    } finally {
      await withTimeout(client.close(), 10_000, 'client.close()').catch(() => {});
    }
  });
}
