// The MCP Inspector CLI (@modelcontextprotocol/inspector, `--cli` mode,
// pinned in package-lock.json) on the Inbox endpoint of a real
// `kobana-mcp serve`: tools/list and a tools/call, in each of its protocol
// eras (--protocol-era modern, auto, legacy). The token goes in its own
// --header option. The Inspector runs as a child process, so its wire is
// recorded by a loopback proxy in front of the server (lib/proxy.mjs): modern
// and auto must reach 2026-07-28 through server/discover without any
// initialize; legacy must initialize and be answered 2025-06-18.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { budget, setup, wireText, assertModernHandshake } from './lib/harness.mjs';
import { recordingProxy } from './lib/proxy.mjs';

const LABEL = 'inspector-cli';
const { cleanups, watchdog } = budget(LABEL);
const require = createRequire(import.meta.url);
const INSPECTOR_DIR = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
const LAUNCHER = path.join(INSPECTOR_DIR, 'clients', 'launcher', 'build', 'index.js');
const RUN_MS = 60_000;
let s = null;

test('setup: server and a developer token', { timeout: 200_000 }, async () => {
  s = await setup({ label: LABEL, cleanups, watchdog });
  s.home = path.join(s.work, 'home'); // the Inspector keeps a catalog under $HOME; never the real one
  mkdirSync(s.home, { recursive: true });
});

// inspector runs `inspector --cli <url> ... --format json` and resolves
// with its exit code, stdout and stderr (killed after RUN_MS).
function inspector(url, args) {
  return new Promise(resolve => {
    execFile(process.execPath, [LAUNCHER, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${s.token}`,
      '--format', 'json', '--connect-timeout', '15000', ...args], {
      env: { ...process.env, HOME: s.home, MCP_CATALOG_PATH: path.join(s.home, 'mcp.json'), NO_COLOR: '1' },
      timeout: RUN_MS, killSignal: 'SIGKILL', maxBuffer: 16 << 20,
    }, (err, stdout, stderr) => resolve({ code: err ? (err.killed ? `killed after ${RUN_MS} ms` : err.code) : 0, stdout, stderr }));
  });
}

function parse(run, what) {
  assert.equal(run.code, 0, `inspector ${what} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  try {
    return JSON.parse(run.stdout);
  } catch {
    assert.fail(`inspector ${what} printed no JSON:\n${run.stdout}\nstderr: ${run.stderr}`);
  }
}

for (const era of ['modern', 'auto', 'legacy']) {
  test(`Inspector CLI, --protocol-era ${era}: tools/list and tools/call`, { timeout: 150_000 }, async t => {
    assert.ok(s, 'setup failed');
    const proxy = await recordingProxy(s.inbox);
    cleanups.push(() => proxy.close());

    const listed = parse(await inspector(proxy.url, ['--method', 'tools/list', '--protocol-era', era]), 'tools/list');
    const names = (listed.result?.tools ?? []).map(tool => tool.name);
    assert.ok(names.includes('workspaces_list') && names.includes('workspaces_get'), `tools/list: ${JSON.stringify(listed).slice(0, 500)}`);
    const listWire = proxy.trace.splice(0);

    const called = parse(await inspector(proxy.url, ['--method', 'tools/call', '--tool-name', 'workspaces_get', '--tool-arg', 'id=kept',
      '--protocol-era', era]), 'tools/call');
    const result = called.result ?? {};
    const body = (result.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
    assert.notEqual(result.isError, true, `tools/call workspaces_get: ${JSON.stringify(called)}`);
    assert.match(body, /"external_id":"kept"/, `tools/call workspaces_get: ${JSON.stringify(called)}`);
    const callWire = proxy.trace.splice(0);

    for (const [what, trace, method] of [['tools/list', listWire, 'tools/list'], ['tools/call', callWire, 'tools/call']]) {
      assert.ok(trace.some(e => e.method === method && e.status === 200), `${what}: no 200 ${method} on the wire: ${wireText(trace)}`);
      if (era === 'legacy') {
        const init = trace[0];
        assert.equal(init?.method, 'initialize', `${what}: first request: ${wireText(trace)}`);
        assert.equal(init.answered, '2025-06-18', `${what}: initialize (offered ${init.offered}) answered 2025-06-18`);
        assert.ok(!trace.some(e => e.method === 'server/discover'), `${what}: legacy sent server/discover: ${wireText(trace)}`);
        for (const e of trace.slice(1)) assert.equal(e.header, '2025-06-18', `${what}: ${e.method} carries MCP-Protocol-Version 2025-06-18`);
      } else {
        assertModernHandshake(trace);
        for (const e of trace) assert.equal(e.header, '2026-07-28', `${what}: ${e.method} carries MCP-Protocol-Version 2026-07-28`);
      }
      t.diagnostic(`${what} wire: ${trace.map(e => `${e.method}(${e.offered ?? e.header})→${e.error ?? e.status}`).join(', ')}`);
    }
  });
}
