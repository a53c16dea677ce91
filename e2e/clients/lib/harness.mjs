// Shared by the client tests in e2e/clients: a real `kobana-mcp serve` with
// developer tokens for the Inbox, Dunning and Kadu endpoints, a fetch that
// records the JSON-RPC wire, a bounded budget, and the calls every client
// makes on each endpoint (exerciseInbox, exerciseDunning, exerciseKadu).
//
// The server is started by ../../lib/server.mjs (fresh data dir, free
// loopback ports, every product), exactly as the sign-in e2e test does.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer, DEMO_EMAIL } from '../../lib/server.mjs';
import { withTimeout, errText } from '../../lib/util.mjs';

export { withTimeout, errText };
export const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
export const BUDGET_MS = Number(process.env.E2E_BUDGET_MS || 180_000);
export const STEP_MS = 20_000;
export const DEMO_ORG = 'Demo Company';

// budget makes the test file fail (not hang) past E2E_BUDGET_MS, and runs
// the cleanups (server, temp dirs) at the end or on that failure.
export function budget(label) {
  const cleanups = [];
  const cleanup = async () => {
    while (cleanups.length) {
      const fn = cleanups.pop();
      await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup step').catch(err => console.error(`${label} cleanup: ${err.message}`));
    }
  };
  const watchdog = setTimeout(async () => {
    console.error(`\n${label}: exceeded its budget of ${BUDGET_MS} ms; stopping the server and failing.`);
    await cleanup().catch(() => {});
    process.exit(1);
  }, BUDGET_MS);
  watchdog.unref();
  after(async () => {
    await cleanup();
    clearTimeout(watchdog);
  });
  return { cleanups, watchdog };
}

// setup starts the server, adds one workspace per name in `workspaces` (to
// be deleted by the destructive-tool check) and mints the demo owner's
// tokens for the Inbox MCP endpoint (`token`), the Dunning one
// (`dunningToken`, for the endpoint at `dunning`) and the Kadu one
// (`kaduToken`, for the endpoint at `kadu`).
export async function setup({ label, cleanups, watchdog, workspaces = [] }) {
  const work = mkdtempSync(path.join(os.tmpdir(), `kobana-e2e-${label}-`));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  let bin = process.env.KOBANA_MCP_BIN;
  if (!bin) {
    bin = path.join(work, 'kobana-mcp');
    const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` };
    execFileSync('go', ['build', '-o', bin, './cmd/kobana-mcp'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 180_000 });
    watchdog.refresh();
  }
  const dataDir = path.join(work, 'data');
  const server = await startServer({ bin, dataDir });
  cleanups.push(() => server.stop());
  const inbox = server.endpoints().inbox.url;
  const base = new URL(inbox).origin;
  const kobana = args => execFileSync(bin, [...args, '--data-dir', dataDir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 }).trim();
  for (const ext of workspaces) {
    kobana(['orgs', 'add-workspace', '--org', DEMO_ORG, '--label', `Workspace ${ext}`, '--external-id', ext]);
  }
  kobana(['orgs', 'add-workspace', '--org', DEMO_ORG, '--label', 'Kept', '--external-id', 'kept']);
  const token = kobana(['token', '--product', 'inbox', '--user', DEMO_EMAIL, '--inbox-public-url', base, '--ttl', '30m']);
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the token command prints a JWT');
  const dunning = server.endpoints().dunning.url;
  const dunningToken = kobana(['token', '--product', 'dunning', '--user', DEMO_EMAIL, '--dunning-public-url', new URL(dunning).origin, '--ttl', '30m']);
  assert.match(dunningToken, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the token command prints a JWT for Dunning');
  const kadu = server.endpoints().kadu.url;
  const kaduToken = kobana(['token', '--product', 'kadu', '--user', DEMO_EMAIL, '--kadu-public-url', new URL(kadu).origin, '--ttl', '30m']);
  assert.match(kaduToken, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the token command prints a JWT for Kadu');
  return { work, bin, dataDir, server, inbox, base, token, dunning, dunningToken, kadu, kaduToken, kobana };
}

// recordingFetch wraps fetch and pushes one entry per JSON-RPC POST to
// `trace`: method, the protocol version the request offers (initialize's
// params.protocolVersion, or the 2026 _meta), the MCP-Protocol-Version
// header, the HTTP status, and the answer's protocolVersion / error code.
export function recordingFetch(trace) {
  return async (url, init = {}) => {
    const res = await fetch(url, init);
    if ((init.method ?? 'GET') === 'POST' && typeof init.body === 'string') {
      const entry = { method: null, offered: null, header: new Headers(init.headers).get('mcp-protocol-version'), status: res.status, answered: null, error: null };
      try {
        const body = JSON.parse(init.body);
        entry.method = body.method ?? null;
        entry.offered = body.params?.protocolVersion ?? body.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? null;
      } catch {}
      if ((res.headers.get('content-type') ?? '').includes('application/json')) {
        try {
          const answer = JSON.parse(await res.clone().text());
          entry.answered = answer.result?.protocolVersion ?? null;
          entry.error = answer.error?.code ?? null;
        } catch {}
      }
      trace.push(entry);
    }
    return res;
  };
}

export const wireText = trace => trace.map(e => `${e.method}→${e.error ?? e.status}`).join(', ');

// assertModernHandshake: the client reached 2026-07-28 through
// server/discover, and never sent initialize (no silent fallback).
export function assertModernHandshake(trace, negotiated) {
  assert.ok(trace.length > 0, 'nothing on the wire');
  assert.ok(!trace.some(e => e.method === 'initialize'), `the client fell back to initialize: ${wireText(trace)}`);
  assert.equal(trace[0].method, 'server/discover', `first request: ${wireText(trace)}`);
  assert.equal(trace[0].status, 200, 'server/discover answered');
  assert.equal(trace[0].offered, '2026-07-28', 'server/discover _meta protocolVersion');
  if (negotiated !== undefined) assert.equal(negotiated, '2026-07-28', 'negotiated protocol version');
}

// assertLegacyHandshake: initialize offering `offered`, answered
// `answered`, and every later request carries MCP-Protocol-Version: answered.
export function assertLegacyHandshake(trace, { offered, answered }) {
  assert.ok(!trace.some(e => e.method === 'server/discover'), `a 2025 client sent server/discover: ${wireText(trace)}`);
  const init = trace[0];
  assert.equal(init?.method, 'initialize', `first request: ${wireText(trace)}`);
  assert.equal(init.offered, offered, 'initialize params.protocolVersion');
  assert.equal(init.status, 200, 'initialize answered');
  assert.equal(init.answered, answered, 'initialize result.protocolVersion (the server\'s counter-offer)');
  for (const e of trace.slice(1)) {
    assert.equal(e.header, answered, `${e.method} carries MCP-Protocol-Version ${answered}`);
  }
}

// An elicitation handler the test steers: accept (confirm: true) or decline.
export function elicitor() {
  const e = {
    action: 'decline',
    asked: [],
    set(action) { e.action = action; e.asked = []; },
    async handle(params) {
      e.asked.push(params);
      return e.action === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: e.action };
    },
  };
  return e;
}

export function text(result) {
  return (result?.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}

// jsonRpcCode reads the JSON-RPC error code of a failed call. A 2026-07-28
// answer of -32601 comes with HTTP 404 (SEP-2575, checked by the
// conformance suite's server-stateless scenario); the v2 client 2.4.0 does
// not parse the JSON-RPC body of a 404 and throws an SdkHttpError carrying
// the status and the body instead, so the code is read from that body.
export function jsonRpcCode(err) {
  const code = err?.code ?? err?.data?.code ?? err?.cause?.code;
  if (typeof code === 'number') return { code, via: 'JSON-RPC error' };
  if (err?.data?.status && typeof err.data.text === 'string') {
    try {
      const body = JSON.parse(err.data.text);
      if (typeof body?.error?.code === 'number') return { code: body.error.code, via: `HTTP ${err.data.status} with a JSON-RPC error body (${err.name} ${code})` };
    } catch {}
  }
  return { code, via: 'other' };
}

// expectMethodNotFound: the call must fail with JSON-RPC -32601.
async function expectMethodNotFound(t, promise, step) {
  let err = null;
  try {
    await withTimeout(promise, STEP_MS, step);
  } catch (e) {
    err = e;
  }
  assert.ok(err, `${step}: succeeded, but the server does not declare the capability (want -32601)`);
  const { code, via } = jsonRpcCode(err);
  assert.equal(code, -32601, `${step}: want JSON-RPC -32601, got ${errText(err)}`);
  if (via !== 'JSON-RPC error') t.diagnostic(`${step}: -32601 reached the client as ${via}`);
}

// expectNoList: a list method of a feature the server does not declare.
// Either the server answered -32601, or the client itself returned an empty
// list without sending anything (the v2 SDK does that when the capability
// is absent); a list the server sent would be a server bug.
async function expectNoList(t, trace, promise, method, key, step) {
  const before = trace.length;
  let result, err = null;
  try {
    result = await withTimeout(promise, STEP_MS, step);
  } catch (e) {
    err = e;
  }
  const sent = trace.slice(before).some(e => e.method === method);
  if (err) {
    const { code, via } = jsonRpcCode(err);
    assert.equal(code, -32601, `${step}: want JSON-RPC -32601, got ${errText(err)}`);
    if (via !== 'JSON-RPC error') t.diagnostic(`${step}: -32601 reached the client as ${via}`);
    return;
  }
  assert.ok(!sent, `${step}: the server answered ${method} with a result, but it does not declare the capability (want -32601)`);
  assert.deepEqual(result?.[key], [], `${step}: the client returned ${JSON.stringify(result)}`);
  t.diagnostic(`${step}: the client answered an empty list itself, without sending ${method}`);
}

// exerciseInbox makes the same calls with any client that has the SDK's
// Client methods (v1 and v2 do): tools/list; a read tool; resources,
// templates and a read; prompts and a get; a completion; and the
// destructive tool through the elicitation handler. What the server does
// not offer must answer -32601; when it starts offering it (the
// capability appears), the same code lists, reads, gets and completes the
// first one instead.
//   modern: the connection speaks 2026-07-28 (the destructive tool then
//           asks through elicitation; on 2025 it answers
//           confirmation_required, with the approval link, without asking).
//   deleteId: the external id of a workspace this run may delete.
//   trace: the recordingFetch trace of this client.
//   raw: (method, params) => a request sent as is, for clients whose list
//        methods answer locally when the capability is absent (v2), so the
//        server's -32601 is checked anyway.
export async function exerciseInbox(t, client, { modern, elicit, deleteId, trace, raw }) {
  const step = (p, name) => withTimeout(p, STEP_MS, name);
  const caps = client.getServerCapabilities() ?? {};
  assert.ok(caps.tools, `capabilities without tools: ${JSON.stringify(caps)}`);
  t.diagnostic(`capabilities: ${JSON.stringify(caps)}`);

  // tools/list
  const { tools } = await step(client.listTools(), 'tools/list');
  const byName = Object.fromEntries(tools.map(tool => [tool.name, tool]));
  for (const name of ['workspaces_list', 'workspaces_get']) {
    assert.ok(byName[name], `tools/list has no ${name}: ${Object.keys(byName).join(', ')}`);
    assert.equal(byName[name].annotations?.readOnlyHint, true, `${name} is annotated read-only`);
  }

  // A read tool.
  const listed = await step(client.callTool({ name: 'workspaces_list', arguments: {} }), 'tools/call workspaces_list');
  assert.notEqual(listed.isError, true, `workspaces_list: ${text(listed)}`);
  const ids = JSON.parse(text(listed)).data.map(w => w.external_id);
  assert.ok(ids.includes('kept'), `workspaces_list lists the workspaces: ${ids}`);
  const got = await step(client.callTool({ name: 'workspaces_get', arguments: { id: 'kept' } }), 'tools/call workspaces_get');
  assert.notEqual(got.isError, true, `workspaces_get: ${text(got)}`);
  assert.match(text(got), /"external_id":"kept"/);

  await exerciseFeatures(t, client, { trace, raw });

  // The destructive tool.
  const del = byName.workspaces_delete;
  if (!del) {
    t.diagnostic('SKIPPED the destructive-tool check: the Inbox lists no workspaces_delete tool yet');
    return { skippedDestructive: true };
  }
  assert.equal(del.annotations?.destructiveHint, true, 'workspaces_delete is annotated destructive');
  const exists = async () => {
    const r = await step(client.callTool({ name: 'workspaces_get', arguments: { id: deleteId } }), `workspaces_get ${deleteId}`);
    if (r.isError) assert.match(text(r), /not_found/, `workspaces_get ${deleteId}: ${text(r)}`);
    return !r.isError;
  };
  const remove = () => step(client.callTool({ name: 'workspaces_delete', arguments: { id: deleteId } }), `tools/call workspaces_delete ${deleteId}`);
  if (!modern) {
    elicit.set('accept');
    const r = await remove();
    assert.equal(r.isError, true, `2025 workspaces_delete must refuse: ${text(r)}`);
    assert.match(text(r), /confirmation_required/);
    assert.match(JSON.parse(text(r)).error.approval_url ?? '', /\/approvals\/[^/]+$/, `the refusal carries the approval link: ${text(r)}`);
    assert.equal(elicit.asked.length, 0, 'the elicitation handler is never asked on the 2025 handshake');
    assert.ok(await exists(), 'nothing deleted without a confirmation');
    return { skippedDestructive: false };
  }
  elicit.set('decline');
  let r = await remove();
  assert.equal(r.isError, true, `declined workspaces_delete must be an error: ${text(r)}`);
  assert.equal(elicit.asked.length, 1, 'declined: the elicitation handler is asked once');
  assert.match(elicit.asked[0].message, new RegExp(`Workspace ${deleteId}`), 'the question names the workspace');
  assert.ok(await exists(), 'declined: nothing deleted');
  elicit.set('accept');
  r = await remove();
  assert.notEqual(r.isError, true, `accepted workspaces_delete: ${text(r)}`);
  assert.equal(elicit.asked.length, 1, 'accepted: the elicitation handler is asked once');
  assert.ok(!(await exists()), 'accepted: the workspace is gone');
  return { skippedDestructive: false };
}

// exerciseFeatures: resources, templates and a read; prompts and a get; a
// completion. Each feature the server does not declare must be absent
// (-32601, or an empty list the client made up without asking); each one
// it declares is listed, and its first item read, got or completed.
export async function exerciseFeatures(t, client, { trace, raw }) {
  const step = (p, name) => withTimeout(p, STEP_MS, name);
  const caps = client.getServerCapabilities() ?? {};
  // Resources and templates.
  if (!caps.resources) {
    await expectNoList(t, trace, client.listResources(), 'resources/list', 'resources', 'listResources() without the resources capability');
    await expectNoList(t, trace, client.listResourceTemplates(), 'resources/templates/list', 'resourceTemplates', 'listResourceTemplates() without the resources capability');
    if (raw) {
      await expectMethodNotFound(t, raw('resources/list', {}), 'resources/list (sent as is) without the resources capability');
      await expectMethodNotFound(t, raw('resources/templates/list', {}), 'resources/templates/list (sent as is) without the resources capability');
    }
    await expectMethodNotFound(t, client.readResource({ uri: 'kobana://inbox/nothing' }), 'resources/read without the resources capability');
  } else {
    const { resources } = await step(client.listResources(), 'resources/list');
    const { resourceTemplates } = await step(client.listResourceTemplates(), 'resources/templates/list');
    t.diagnostic(`${resources.length} resources, ${resourceTemplates.length} templates`);
    if (resources.length) {
      const read = await step(client.readResource({ uri: resources[0].uri }), `resources/read ${resources[0].uri}`);
      assert.ok(read.contents?.length > 0 && read.contents[0].uri, `resources/read ${resources[0].uri}: ${JSON.stringify(read)}`);
    }
    if (caps.completions && resourceTemplates.length) {
      const tpl = resourceTemplates[0].uriTemplate;
      const name = /\{[+#./;?&]?([^},*]+)/.exec(tpl)?.[1];
      if (name) {
        const done = await step(client.complete({ ref: { type: 'ref/resource', uri: tpl }, argument: { name, value: '' } }), `completion/complete ${tpl}`);
        assert.ok(Array.isArray(done.completion?.values), `completion/complete ${tpl}: ${JSON.stringify(done)}`);
      }
    }
  }

  // Prompts and completion.
  if (!caps.completions) {
    await expectMethodNotFound(t, client.complete({ ref: { type: 'ref/prompt', name: 'nothing' }, argument: { name: 'x', value: '' } }),
      'completion/complete without the completions capability');
  }
  if (!caps.prompts) {
    await expectNoList(t, trace, client.listPrompts(), 'prompts/list', 'prompts', 'listPrompts() without the prompts capability');
    if (raw) await expectMethodNotFound(t, raw('prompts/list', {}), 'prompts/list (sent as is) without the prompts capability');
    await expectMethodNotFound(t, client.getPrompt({ name: 'nothing' }), 'prompts/get without the prompts capability');
  } else {
    const { prompts } = await step(client.listPrompts(), 'prompts/list');
    t.diagnostic(`${prompts.length} prompts`);
    if (prompts.length) {
      const p = prompts[0];
      const args = {};
      for (const a of p.arguments ?? []) {
        let value = 'example';
        if (caps.completions) {
          const done = await step(client.complete({ ref: { type: 'ref/prompt', name: p.name }, argument: { name: a.name, value: '' } }),
            `completion/complete ${p.name}.${a.name}`);
          assert.ok(Array.isArray(done.completion?.values), `completion/complete ${p.name}.${a.name}`);
          if (done.completion.values.length) value = done.completion.values[0];
        }
        if (a.required || value !== 'example') args[a.name] = value;
      }
      try {
        const prompt = await step(client.getPrompt({ name: p.name, arguments: args }), `prompts/get ${p.name}`);
        assert.ok(prompt.messages?.length > 0, `prompts/get ${p.name}: no messages`);
      } catch (err) {
        // An argument value made up here may be refused (-32602): the
        // prompt exists and the server checked it. Anything else fails.
        if (jsonRpcCode(err).code !== -32602) throw err;
        t.diagnostic(`prompts/get ${p.name} with ${JSON.stringify(args)}: -32602 ${err.message}`);
      }
    }
  }
}

// exerciseDunning makes the same calls on the Dunning endpoint with any
// client that has the SDK's Client methods: tools/list (every tool with its
// annotations, none open-world, dunning_me first); dunning_me and a write
// tool (the endpoint's JSON indented two spaces); the resource templates,
// the debtor's read and its id completed; design_collection_plan and the
// generic feature checks; and the destructive dunning_debtors_archive —
// through the elicitation handler on 2026-07-28 (declined: still active;
// accepted: archived), refused with confirmation_required (carrying the
// approval link) without asking on 2025.
//   ext: the external id of a debtor this run creates and archives.
export async function exerciseDunning(t, client, { modern, elicit, ext, trace, raw }) {
  const step = (p, name) => withTimeout(p, STEP_MS, name);
  const call = (name, args) => step(client.callTool({ name, arguments: args }), `tools/call ${name}`);
  const caps = client.getServerCapabilities() ?? {};
  for (const c of ['tools', 'resources', 'prompts', 'completions']) assert.ok(caps[c], `Dunning declares ${c}: ${JSON.stringify(caps)}`);
  assert.match(client.getInstructions() ?? '', /Call dunning_me first/, 'the server instructions');

  const { tools } = await step(client.listTools(), 'tools/list');
  for (const tool of tools) {
    const a = tool.annotations ?? {};
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof a[hint], 'boolean', `${tool.name} sets ${hint}`);
    }
    assert.equal(a.openWorldHint, false, `${tool.name} is not open-world`);
  }
  assert.equal(tools[0]?.name, 'dunning_me', 'dunning_me is listed first');
  assert.equal(tools[0].annotations.readOnlyHint, true, 'dunning_me is read-only');
  const archiveTool = tools.find(tool => tool.name === 'dunning_debtors_archive');
  assert.equal(archiveTool?.annotations?.destructiveHint, true, 'dunning_debtors_archive is destructive');

  const me = await call('dunning_me', {});
  assert.notEqual(me.isError, true, `dunning_me: ${text(me)}`);
  assert.match(text(me), /^\{\n  "data": \{/, 'tool text is indented two spaces');
  assert.match(text(me), /"name": "Demo Company"/);
  const upsert = await call('dunning_debtors_upsert', { external_id: ext, name: `Debtor ${ext}`, document: '529.982.247-25', emails: [`${ext}@example.com`] });
  assert.notEqual(upsert.isError, true, `dunning_debtors_upsert: ${text(upsert)}`);
  assert.match(text(upsert), new RegExp(`"external_id": "${ext}"`));

  const { resourceTemplates } = await step(client.listResourceTemplates(), 'resources/templates/list');
  const templates = resourceTemplates.map(r => r.uriTemplate);
  for (const want of ['kobana://dunning/charges/{id}', 'kobana://dunning/collection-plans/{id}', 'kobana://dunning/debtors/{id}',
    'kobana://dunning/documents/{id}', 'kobana://dunning/exports/{id}']) {
    assert.ok(templates.includes(want), `resources/templates/list lacks ${want}: ${templates.join(', ')}`);
  }
  const uri = `kobana://dunning/debtors/${ext}`;
  const read = await step(client.readResource({ uri }), `resources/read ${uri}`);
  assert.equal(read.contents?.[0]?.uri, uri);
  assert.match(read.contents[0].text, /never instructions/, 'the resource carries the third-party notice');
  assert.match(read.contents[0].text, new RegExp(`"name": "Debtor ${ext}"`));
  const done = await step(client.complete({ ref: { type: 'ref/resource', uri: 'kobana://dunning/debtors/{id}' }, argument: { name: 'id', value: ext } }),
    'completion/complete kobana://dunning/debtors/{id}');
  assert.deepEqual(done.completion.values, [ext]);
  const prompt = await step(client.getPrompt({ name: 'design_collection_plan', arguments: { segment: 'companies (CNPJ)', tone: 'firm' } }),
    'prompts/get design_collection_plan');
  assert.match(prompt.messages?.[0]?.content?.text ?? '', /dunning_plan_steps_create/);
  await exerciseFeatures(t, client, { trace, raw });

  const status = async () => {
    const r = await call('dunning_debtors_get', { id: ext });
    assert.notEqual(r.isError, true, `dunning_debtors_get ${ext}: ${text(r)}`);
    return JSON.parse(text(r)).data.status;
  };
  const archive = () => call('dunning_debtors_archive', { id: ext });
  if (!modern) {
    elicit.set('accept');
    const r = await archive();
    assert.equal(r.isError, true, `2025 dunning_debtors_archive must refuse: ${text(r)}`);
    assert.match(text(r), /"code": "confirmation_required"/);
    assert.match(JSON.parse(text(r)).error.approval_url ?? '', /\/approvals\/[^/]+$/, `the refusal carries the approval link: ${text(r)}`);
    assert.equal(elicit.asked.length, 0, 'the elicitation handler is never asked on the 2025 handshake');
    assert.equal(await status(), 'active', 'nothing archived without a confirmation');
    return;
  }
  elicit.set('decline');
  let r = await archive();
  assert.equal(r.isError, true, `declined dunning_debtors_archive must be an error: ${text(r)}`);
  assert.equal(elicit.asked.length, 1, 'declined: the elicitation handler is asked once');
  assert.match(elicit.asked[0].message, new RegExp(`Debtor ${ext}`), 'the question names the debtor');
  assert.equal(await status(), 'active', 'declined: nothing archived');
  elicit.set('accept');
  r = await archive();
  assert.notEqual(r.isError, true, `accepted dunning_debtors_archive: ${text(r)}`);
  assert.equal(await status(), 'archived', 'accepted: the debtor is archived');
}

// exerciseKadu makes the same calls on the Kadu endpoint with any client
// that has the SDK's Client methods: tools/list (every tool with its four
// annotations, none open-world; kadu_tasks_run destructive and not
// idempotent); kadu_me (a read tool) and kadu_tasks_create (an ordinary
// write: a one-step workflow calling Dunning's dunning_me) and
// kadu_tasks_get; the generic feature checks (resources, prompts and
// completions as far as Kadu declares them); and the destructive
// kadu_tasks_run:
//   - a client that can elicit on 2026-07-28 (canElicit): declined in its
//     elicitation handler, nothing is queued; accepted, one execution is
//     queued, and kadu_executions_get follows it to succeeded, with its one
//     step read by kadu_executions_steps;
//   - any other client (2025, or 2026 without elicitation): the approval
//     link as a normal result (approval_id, approval_url on Kadu's
//     /approvals/, status pending, the message naming the task), the
//     handler never asked, no execution queued, and kadu_approvals_get
//     reads the approval as pending with no execution.
//   label: names this run's task (each run makes its own).
export async function exerciseKadu(t, client, { canElicit, elicit, label, url, trace, raw }) {
  const step = (p, name) => withTimeout(p, STEP_MS, name);
  const call = (name, args) => step(client.callTool({ name, arguments: args }), `tools/call ${name}`);
  const data = (r, name) => {
    assert.notEqual(r.isError, true, `${name}: ${text(r)}`);
    return JSON.parse(text(r)).data;
  };
  const caps = client.getServerCapabilities() ?? {};
  assert.ok(caps.tools, `capabilities without tools: ${JSON.stringify(caps)}`);
  t.diagnostic(`capabilities: ${JSON.stringify(caps)}`);
  assert.match(client.getInstructions() ?? '', /Running a task \(kadu_tasks_run\) only queues an execution/, 'the server instructions');

  const { tools } = await step(client.listTools(), 'tools/list');
  const byName = Object.fromEntries(tools.map(tool => [tool.name, tool]));
  for (const tool of tools) {
    const a = tool.annotations ?? {};
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof a[hint], 'boolean', `${tool.name} sets ${hint}`);
    }
    assert.equal(a.openWorldHint, false, `${tool.name} is not open-world`);
  }
  assert.equal(byName.kadu_me?.annotations?.readOnlyHint, true, 'kadu_me is read-only');
  const runTool = byName.kadu_tasks_run;
  assert.equal(runTool?.annotations?.destructiveHint, true, 'kadu_tasks_run is destructive');
  assert.equal(runTool.annotations.idempotentHint, false, 'kadu_tasks_run is not idempotent');

  // A read tool and an ordinary write.
  const me = data(await call('kadu_me', {}), 'kadu_me');
  assert.equal(me.organization?.name, DEMO_ORG);
  assert.equal(me.role, 'owner');
  const name = `Task ${label}`;
  const task = data(await call('kadu_tasks_create', { name, steps: [{ id: 'me', tool: 'dunning_me' }], idempotency_key: `create-${label}` }),
    'kadu_tasks_create');
  assert.equal(task.mode, 'workflow');
  assert.deepEqual(task.allowed_tools, ['dunning_me'], 'a workflow may call its steps\' tools');
  const got = data(await call('kadu_tasks_get', { task_id: task.id }), 'kadu_tasks_get');
  assert.equal(got.name, name);
  assert.equal(got.status, 'active');

  await exerciseFeatures(t, client, { trace, raw });

  const executions = async () => data(await call('kadu_executions_list', { task_id: task.id }), 'kadu_executions_list');
  const run = () => call('kadu_tasks_run', { task_id: task.id, input: { month: '2026-12' } });
  if (!canElicit) {
    elicit.set('accept');
    const r = await run();
    assert.notEqual(r.isError, true, `kadu_tasks_run without elicitation answers the approval link, not an error: ${text(r)}`);
    const link = JSON.parse(text(r));
    assert.equal(link.status, 'pending', `the approval link: ${text(r)}`);
    assert.equal(link.approval_url, `${new URL(url).origin}/approvals/${link.approval_id}`, 'the link is Kadu\'s own approval page');
    assert.match(link.message, new RegExp(`Run task '${name}'`), 'the message names the task');
    assert.match(link.message, /Nothing runs until you choose Continuar/);
    assert.equal(elicit.asked.length, 0, 'the elicitation handler is never asked');
    assert.deepEqual(await executions(), [], 'nothing queued before the person approves');
    const approval = data(await call('kadu_approvals_get', { approval_id: link.approval_id }), 'kadu_approvals_get');
    assert.equal(approval.status, 'pending');
    assert.equal(approval.tool, 'kadu_tasks_run');
    assert.equal(approval.execution, null, 'a pending approval started no execution');
    return;
  }
  elicit.set('decline');
  let r = await run();
  assert.equal(r.isError, true, `declined kadu_tasks_run must be an error: ${text(r)}`);
  assert.equal(elicit.asked.length, 1, 'declined: the elicitation handler is asked once');
  assert.match(elicit.asked[0].message, new RegExp(`Run task '${name}'`), 'the question names the task');
  assert.match(elicit.asked[0].message, /"month":"2026-12"/, 'the question shows the input');
  assert.deepEqual(await executions(), [], 'declined: nothing queued');
  elicit.set('accept');
  r = await run();
  const queued = data(r, 'accepted kadu_tasks_run');
  assert.equal(elicit.asked.length, 1, 'accepted: the elicitation handler is asked once');
  assert.equal(queued.status, 'queued', 'running a task only queues it');
  assert.equal(queued.task_id, task.id);
  assert.equal((await executions()).length, 1, 'accepted: one execution queued');
  // Follow it to its end (the server's own worker runs it).
  let exec = queued;
  for (const deadline = Date.now() + 15_000; !['succeeded', 'failed', 'canceled', 'timed_out', 'cost_exceeded'].includes(exec.status);) {
    assert.ok(Date.now() < deadline, `the execution is still ${exec.status} after 15 s`);
    await new Promise(res => setTimeout(res, 200));
    exec = data(await call('kadu_executions_get', { execution_id: queued.id }), 'kadu_executions_get');
  }
  assert.equal(exec.status, 'succeeded', `the execution ended ${exec.status}: ${JSON.stringify(exec.error)}`);
  assert.equal(exec.output?.steps?.me?.data?.organization?.name, DEMO_ORG, 'the step called dunning_me as the person');
  const steps = data(await call('kadu_executions_steps', { execution_id: queued.id }), 'kadu_executions_steps');
  assert.deepEqual(steps.map(s => [s.kind, s.tool_name, s.status]), [['tool_call', 'dunning_me', 'succeeded']],
    `the execution's steps: ${JSON.stringify(steps)}`);
}
