// End-to-end: the approval link of a destructive tool (productkit/approval),
// with headless Chromium playing the person.
//
// The server is the test server examples/approval: one product listener
// with the real built-in authorization server (sign-in page, sessions), the
// approval policy and pages, a real MCP endpoint, and a test catalog whose
// destructive tool projects_delete only counts its runs (GET /test/runs).
// The test
//   1. builds and starts it twice: with the normal 10-minute expiry, and
//      with a 3-second one for the expiry case;
//   2. calls projects_delete as a 2025-06-18 client (a client that cannot
//      confirm): the answer is a normal result with approval_url,
//      approval_id, expires_at and a message, and nothing runs;
//   3. the owner opens the link, is sent to sign in, comes back to the page,
//      sees the pending call (tool, target, arguments), presses Continuar,
//      and the page shows the call succeeded: it ran exactly once;
//   4. a second person of the same organization signs in and gets the 404
//      page for that approval;
//   5. Cancelar on another approval runs nothing;
//   6. an approval opened after its expiry says "Nada foi executado", offers
//      no Continuar, and runs nothing;
//   7. projects_export, whose answer only queues an export (as Kadu's
//      kadu_tasks_run queues an execution): after Continuar the page says
//      the call ran and the export is queued ("Na fila"), not done, and
//      keeps reloading; once the export ends the page says so by itself;
//   8. a browser that prefers English gets the sign-in and approval pages
//      in English.
// The browsers speak Brazilian Portuguese (the pages' default) unless a
// test says otherwise; the sign-in page names what is approved and who
// asked. Screenshots: test-artifacts/e2e/approval-*.png.
//
// Run it with ./run.sh, or alone: node --test approval.test.mjs (it builds
// the test server with `go build`; APPROVAL_TEST_BIN names a built one).
// E2E_BUDGET_MS bounds it (default 180000).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launchBrowser } from './lib/browser.mjs';
import { sleep, withTimeout } from './lib/util.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR || path.join(ROOT, 'test-artifacts', 'e2e');
const BUDGET_MS = Number(process.env.E2E_BUDGET_MS || 180_000);
const STEP_MS = 15_000;
const OWNER = { email: 'ana@demo.local', password: 'ana-demo-password-1' };
const OTHER = { email: 'bruno@demo.local', password: 'bruno-demo-password-1' };
const ALPHA_MESSAGE = "Delete project 'Alpha' (id alpha)? Its files are removed. This cannot be undone.";
const art = name => path.join(ARTIFACTS, name);

const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup step').catch(err => console.error(`e2e cleanup: ${err.message}`));
  }
}
const watchdog = setTimeout(async () => {
  console.error(`\ne2e approval: exceeded its budget of ${BUDGET_MS} ms; stopping the servers and Chromium and failing.`);
  await cleanup().catch(() => {});
  process.exit(1);
}, BUDGET_MS);
watchdog.unref();
after(async () => {
  await cleanup();
  clearTimeout(watchdog);
});

// startTestServer runs the approval test server and resolves with its base
// URL once it prints it.
async function startTestServer(bin, args, logName) {
  const child = spawn(bin, ['-addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => { try { child.kill('SIGKILL'); } catch {} };
  process.on('exit', killOnExit);
  const errLog = createWriteStream(art(`${logName}.stderr.log`));
  child.stderr.pipe(errLog);
  let out = '';
  let exit = null;
  const exited = new Promise(resolve => child.on('exit', (code, signal) => { exit = { code, signal }; process.off('exit', killOnExit); resolve(exit); }));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', chunk => { out += chunk; });
  const deadline = Date.now() + 30_000;
  let url = null;
  while (!url) {
    url = out.match(/^approval test server: (\S+)$/m)?.[1] ?? null;
    if (url) break;
    if (exit) throw new Error(`the approval test server exited (${JSON.stringify(exit)}) before printing its URL; see ${art(`${logName}.stderr.log`)}`);
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error('the approval test server printed no URL within 30 s'); }
    await sleep(50);
  }
  const server = {
    url,
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      if (!(await Promise.race([exited, sleep(5000).then(() => null)]))) child.kill('SIGKILL');
    },
  };
  cleanups.push(() => server.stop());
  return server;
}

async function fetchT(url, init = {}) {
  return withTimeout(fetch(url, { ...init, signal: AbortSignal.timeout(10_000) }), 11_000, `${init.method ?? 'GET'} ${url}`);
}

async function runs(server) {
  const res = await fetchT(`${server.url}/test/runs`);
  assert.equal(res.status, 200);
  return res.json();
}

// requestDeletion calls projects_delete as a 2025-06-18 client (one that
// cannot confirm in the chat) and returns the link object of its answer.
async function requestDeletion(server, project) {
  return requestCall(server, 'projects_delete', { project, reason: 'fim do contrato' });
}

// requestCall calls a destructive tool as a 2025-06-18 client and returns
// the link object of its answer.
async function requestCall(server, name, args) {
  const token = await (await fetchT(`${server.url}/test/token?as=owner`)).text();
  const res = await fetchT(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18', Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.ok(body.result, `tools/call answered no result: ${JSON.stringify(body)}`);
  assert.notEqual(body.result.isError, true, `the answer is an error: ${JSON.stringify(body.result)}`);
  const link = JSON.parse(body.result.content[0].text);
  assert.match(link.approval_id, /^[0-9a-f-]{36}$/);
  assert.equal(link.approval_url, `${server.url}/approvals/${link.approval_id}`);
  assert.equal(link.status, 'pending');
  assert.ok(!Number.isNaN(Date.parse(link.expires_at)), `expires_at ${link.expires_at}`);
  assert.match(link.message, /Open this link to approve/);
  assert.match(link.message, /Nothing runs until you choose Continuar/);
  return link;
}

// newPage opens a page in a browser with step timeouts.
async function newPage(browser) {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.setDefaultNavigationTimeout(STEP_MS);
  return page;
}

// openSignedIn opens an approval link: the page sends an anonymous visitor
// to sign in, and sign-in comes back to it. Returns the HTTP status of the
// approval page.
async function openSignedIn(page, link, who, shot, lead = /^Entre para /) {
  await page.goto(link, { waitUntil: 'domcontentloaded' });
  await page.locator('input[name="email"]').waitFor({ state: 'visible' });
  assert.ok(page.url().includes('/oauth/sign-in?next='), `not the sign-in page: ${page.url()}`);
  const said = await page.locator('#lead').innerText();
  assert.match(said, lead, 'the sign-in page does not say why');
  if (shot) await page.screenshot({ path: art(shot), fullPage: true });
  await page.locator('input[name="email"]').fill(who.email);
  await page.locator('input[name="password"]').fill(who.password);
  const [res] = await Promise.all([
    page.waitForResponse(r => r.url() === link && r.request().method() === 'GET'),
    page.locator('#sign-in').click(),
  ]);
  await page.waitForLoadState('domcontentloaded');
  assert.equal(page.url(), link, 'sign-in did not come back to the approval page');
  return res.status();
}

async function bodyText(page) {
  return (await page.locator('body').innerText()).replace(/\s+/g, ' ');
}

const s = { main: null, short: null, owner: null, link: null };

test('setup: build and start the approval test server', { timeout: 200_000 }, async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const work = mkdtempSync(path.join(os.tmpdir(), 'kobana-e2e-approval-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  let bin = process.env.APPROVAL_TEST_BIN;
  if (!bin) {
    bin = path.join(work, 'approval-test');
    const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` };
    execFileSync('go', ['build', '-o', bin, './examples/approval'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 180_000 });
    watchdog.refresh();
  }
  s.main = await startTestServer(bin, ['-data-dir', path.join(work, 'main')], 'approval-server');
  s.short = await startTestServer(bin, ['-approval-ttl', '3s'], 'approval-server-short');
  s.owner = await launchBrowser();
  cleanups.push(() => s.owner.close());
});

test('the owner signs in, sees the pending call, presses Continuar: it runs once', { timeout: 60_000 }, async () => {
  s.link = await requestDeletion(s.main, 'alpha');
  assert.deepEqual(await runs(s.main), {}, 'something ran before Continuar');
  const page = await newPage(s.owner);
  const status = await openSignedIn(page, s.link.approval_url, OWNER, 'approval-1-sign-in.png', /^Entre para aprovar «Excluir projeto» pedido por «approval-test-client»\.$/);
  assert.equal(await page.locator('html').getAttribute('lang'), 'pt-BR');
  assert.equal(status, 200);
  await page.locator('#continuar').waitFor({ state: 'visible' });
  await page.screenshot({ path: art('approval-2-pending.png'), fullPage: true });
  const text = await bodyText(page);
  for (const want of ['Aprovar ação', 'Excluir projeto', 'projects_delete', ALPHA_MESSAGE, '"project": "alpha"', '"reason": "fim do contrato"', OWNER.email, 'Continuar', 'Cancelar', 'em 10 minutos']) {
    assert.ok(text.includes(want), `the approval page lacks ${JSON.stringify(want)}: ${text}`);
  }
  assert.equal(await page.locator('#status').getAttribute('data-status'), 'pending');
  assert.deepEqual(await runs(s.main), {}, 'something ran before Continuar');

  await page.locator('#continuar').click();
  // The status page reloads itself until the run has an outcome.
  await page.locator('#status[data-status="succeeded"]').waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: art('approval-3-succeeded.png'), fullPage: true });
  const done = await bodyText(page);
  assert.ok(done.includes('Ação executada') && done.includes('"deleted": "alpha"'), done);
  assert.equal(await page.locator('#continuar').count(), 0, 'the status page still offers Continuar');
  assert.deepEqual(await runs(s.main), { alpha: 1 });

  // Back to the form and Continuar again: nothing runs a second time.
  await page.goBack({ waitUntil: 'domcontentloaded' }).catch(() => {});
  if (await page.locator('#continuar').count()) {
    await page.locator('#continuar').click();
    await page.waitForLoadState('domcontentloaded');
  }
  await sleep(500);
  assert.deepEqual(await runs(s.main), { alpha: 1 }, 'the call ran again');
  await page.close();
});

test('a second person cannot open it', { timeout: 60_000 }, async () => {
  assert.ok(s.link, 'needs the approval of the previous test');
  const other = await launchBrowser();
  cleanups.push(() => other.close());
  const page = await newPage(other);
  const status = await openSignedIn(page, s.link.approval_url, OTHER, null);
  await page.screenshot({ path: art('approval-4-other-person.png'), fullPage: true });
  assert.equal(status, 404);
  const text = await bodyText(page);
  assert.ok(text.includes('Aprovação não encontrada'), text);
  assert.ok(!text.includes('Alpha') && !text.includes('projects_delete'), `the 404 page reveals the approval: ${text}`);
  assert.equal(await page.locator('#continuar').count(), 0);
  assert.deepEqual(await runs(s.main), { alpha: 1 });
  await other.close();
});

test('Cancelar runs nothing', { timeout: 60_000 }, async () => {
  const link = await requestDeletion(s.main, 'beta');
  const page = await newPage(s.owner); // still signed in
  await page.goto(link.approval_url, { waitUntil: 'domcontentloaded' });
  await page.locator('#cancelar').click();
  await page.locator('#status[data-status="cancelled"]').waitFor({ state: 'visible' });
  await page.screenshot({ path: art('approval-5-cancelled.png'), fullPage: true });
  assert.ok((await bodyText(page)).includes('Nada foi executado'));
  await sleep(300);
  assert.deepEqual(await runs(s.main), { alpha: 1 });
  await page.close();
});

test('an expired approval runs nothing', { timeout: 60_000 }, async () => {
  const link = await requestDeletion(s.short, 'gama');
  await sleep(3_500); // the short server's approvals expire after 3 s
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const page = await newPage(browser);
  const status = await openSignedIn(page, link.approval_url, OWNER, null);
  assert.equal(status, 200);
  await page.locator('#status[data-status="expired"]').waitFor({ state: 'visible' });
  await page.screenshot({ path: art('approval-6-expired.png'), fullPage: true });
  const text = await bodyText(page);
  assert.ok(text.includes('Nada foi executado'), text);
  assert.ok(text.includes('Aprovação expirada'), text);
  assert.equal(await page.locator('#continuar').count(), 0, 'an expired approval offers Continuar');
  assert.deepEqual(await runs(s.short), {});
  await browser.close();
});

test('a call that only queued work says so, and follows it', { timeout: 60_000 }, async () => {
  const link = await requestCall(s.main, 'projects_export', { project: 'delta' });
  const page = await newPage(s.owner); // still signed in
  await page.goto(link.approval_url, { waitUntil: 'domcontentloaded' });
  assert.ok((await bodyText(page)).includes('Exportar projeto'));
  await page.locator('#continuar').click();
  // The call runs, and answers an export that is only queued.
  await page.locator('#progress[data-state="queued"]').waitFor({ state: 'visible', timeout: 20_000 });
  await page.screenshot({ path: art('approval-7-done-but-queued.png'), fullPage: true });
  const text = await bodyText(page);
  for (const want of ['Ação iniciada', 'ainda não terminou', 'Na fila', 'a exportação exp-delta-', 'Esta página se atualiza sozinha', 'projects://exports/exp-delta-']) {
    assert.ok(text.includes(want), `the page lacks ${JSON.stringify(want)}: ${text}`);
  }
  assert.ok(!text.includes('Ação executada') && !text.includes('com sucesso'), `the page says it is done while queued: ${text}`);
  assert.equal(await page.locator('#status').getAttribute('data-status'), 'succeeded');
  const follow = await page.locator('#follow-url').getAttribute('href');
  assert.match(follow, /\/test\/exports\/exp-delta-\d+$/);
  // The export ends; the page, reloading itself, says so.
  const res = await fetchT(`${follow}?state=succeeded`, { method: 'POST' });
  assert.equal(res.status, 204);
  await page.locator('#progress[data-state="succeeded"]').waitFor({ state: 'visible', timeout: 10_000 });
  await page.screenshot({ path: art('approval-8-started-work-done.png'), fullPage: true });
  assert.ok((await bodyText(page)).includes('Ação concluída'));
  assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), 0, 'the page still reloads after the work ended');
  await page.close();
});

test('a browser that prefers English gets the pages in English', { timeout: 60_000 }, async () => {
  const link = await requestDeletion(s.main, 'gama');
  const browser = await launchBrowser({ locale: 'en-US' });
  cleanups.push(() => browser.close());
  const page = await newPage(browser);
  const status = await openSignedIn(page, link.approval_url, OWNER, 'approval-9-en-sign-in.png', /^Sign in to approve “Delete a project”, asked for by “approval-test-client”\.$/);
  assert.equal(status, 200);
  await page.locator('#continuar').waitFor({ state: 'visible' });
  await page.screenshot({ path: art('approval-10-en-pending.png'), fullPage: true });
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  const text = await bodyText(page);
  for (const want of ['Approve an action', 'Delete a project', 'Waiting for your decision', 'in 10 minutes', 'Continue', 'Cancel']) {
    assert.ok(text.includes(want), `the English page lacks ${JSON.stringify(want)}: ${text}`);
  }
  for (const pt of ['Aprovar', 'Continuar', 'Nada é executado']) {
    assert.ok(!text.includes(pt), `the English page says ${JSON.stringify(pt)}: ${text}`);
  }
  await page.locator('#cancelar').click();
  await page.locator('#status[data-status="cancelled"]').waitFor({ state: 'visible' });
  assert.ok((await bodyText(page)).includes('Nothing was run'));
  await browser.close();
});
