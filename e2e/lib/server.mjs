// Starts the real `kobana-mcp serve` binary on free loopback ports and reads
// what it prints: one `<name> MCP endpoint: <url>` line per product and, on
// first start with an empty data dir, the demo owner's sign-in email and
// password.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { freePort, sleep, withTimeout } from './util.mjs';

export const DEMO_EMAIL = 'owner@demo.local';

// parseDemoCredentials finds the demo owner's email and password in the
// server's output lines. The exact wording of that output is owned by the
// server, so this is the one place to adjust when it changes. It accepts,
// among others:
//   demo owner: owner@demo.local password: s3cr3t
//   Sign in as owner@demo.local with password "s3cr3t"
//   level=INFO msg="demo owner created" email=owner@demo.local password=s3cr3t
//   email: owner@demo.local            (and on one of the next lines)
//   password (shown once): s3cr3t
// Returns { email, password } or null when either is missing.
export function parseDemoCredentials(lines) {
  const emailRe = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
  // Tried in order on each candidate line: "password: X" / "password=X" /
  // "password is X" (with an optional "(note)"), then a quoted value
  // ("password \"X\""), then a bare "password X".
  const passwordRes = [
    /\bpassword\b["'`]?(?:\s*\([^)]*\))?\s*(?:[:=]|\bis\b)\s*["'`]?([^\s"'`,;]+)/i,
    /\bpassword\b\s+["'`]([^"'`\s]+)["'`]/i,
    /\bpassword\b\s+([^\s"'`,;]+)/i,
  ];
  const passwordIn = line => {
    const text = line.replace(emailRe, ' ');
    for (const re of passwordRes) {
      const m = text.match(re);
      if (m && !/^(for|of|to|is|was|the|shown|printed|below|above)$/i.test(m[1])) return m[1];
    }
    return null;
  };
  let best = null;
  for (let i = 0; i < lines.length; i++) {
    const emails = lines[i].match(emailRe);
    if (!emails) continue;
    const email = emails.includes(DEMO_EMAIL) ? DEMO_EMAIL : emails[0];
    // The password on the same line, else on one of the next three lines
    // (a multi-line banner), else on one of the previous two.
    const window = [i, i + 1, i + 2, i + 3, i - 1, i - 2].filter(j => j >= 0 && j < lines.length);
    for (const j of window) {
      const password = passwordIn(lines[j]);
      if (password) {
        if (email === DEMO_EMAIL) return { email, password };
        best ??= { email, password };
        break;
      }
    }
  }
  return best;
}

// startServer runs `<bin> serve` with a fresh data dir and free ports and
// resolves once all three product endpoints are printed. `logPrefix` is
// where stdout/stderr are copied (`<prefix>.stdout.log`, `.stderr.log`).
export async function startServer({ bin, dataDir, extraArgs = [], env = {}, logPrefix, startupTimeoutMs = 30_000 }) {
  const ports = { inbox: await freePort(), dunning: await freePort(), kadu: await freePort() };
  const args = [
    'serve', '--data-dir', dataDir,
    '--inbox-addr', `127.0.0.1:${ports.inbox}`,
    '--dunning-addr', `127.0.0.1:${ports.dunning}`,
    '--kadu-addr', `127.0.0.1:${ports.kadu}`,
    '--shutdown-grace', '2s',
    ...extraArgs,
  ];
  const child = spawn(bin, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => { try { child.kill('SIGKILL'); } catch {} };
  process.on('exit', killOnExit);

  const out = { stdout: [], stderr: [] };
  const files = logPrefix
    ? { stdout: createWriteStream(`${logPrefix}.stdout.log`), stderr: createWriteStream(`${logPrefix}.stderr.log`) }
    : null;
  for (const stream of ['stdout', 'stderr']) {
    let buf = '';
    child[stream].setEncoding('utf8');
    child[stream].on('data', chunk => {
      files?.[stream].write(chunk);
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        out[stream].push(buf.slice(0, nl).replace(/\r$/, ''));
        buf = buf.slice(nl + 1);
      }
    });
    child[stream].on('end', () => { if (buf) out[stream].push(buf); buf = ''; });
  }
  let exit = null;
  const exited = new Promise(resolve => child.on('exit', (code, signal) => {
    exit = { code, signal };
    process.off('exit', killOnExit);
    files?.stdout.end(); files?.stderr.end();
    resolve(exit);
  }));

  const endpoints = () => {
    const urls = {};
    for (const line of out.stdout) {
      const m = line.match(/^(\S+) MCP endpoint: (\S+)\s*$/);
      if (!m) continue;
      const port = Number(new URL(m[2]).port);
      const key = Object.keys(ports).find(k => ports[k] === port) ??
        (/inbox/i.test(m[1]) ? 'inbox' : /dunning/i.test(m[1]) ? 'dunning' : /kadu/i.test(m[1]) ? 'kadu' : null);
      if (key) urls[key] = { name: m[1], url: m[2] };
    }
    return urls;
  };

  const server = {
    child, ports, args, out,
    get exit() { return exit; },
    exited,
    endpoints,
    credentials: () => parseDemoCredentials([...out.stdout, ...out.stderr]),
    // stop sends SIGTERM, then SIGKILL if the server has not exited in 5 s.
    async stop() {
      if (exit) return exit;
      child.kill('SIGTERM');
      const done = await Promise.race([exited, sleep(5000).then(() => null)]);
      if (!done) { child.kill('SIGKILL'); await withTimeout(exited, 5000, 'server exit after SIGKILL').catch(() => {}); }
      return exit;
    },
    describe() {
      return `command: ${bin} ${args.join(' ')}\n--- stdout ---\n${out.stdout.join('\n')}\n--- stderr (last 40 lines) ---\n${out.stderr.slice(-40).join('\n')}`;
    },
  };

  const deadline = Date.now() + startupTimeoutMs;
  while (Object.keys(endpoints()).length < 3) {
    if (exit) {
      const err = new Error(`kobana-mcp serve exited (code ${exit.code}, signal ${exit.signal}) before printing its three MCP endpoints\n${server.describe()}`);
      err.server = server;
      throw err;
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`kobana-mcp serve printed ${Object.keys(endpoints()).length}/3 MCP endpoint lines within ${startupTimeoutMs} ms\n${server.describe()}`);
    }
    await sleep(50);
  }
  return server;
}

// waitForCredentials polls the server's output for the demo owner's
// credentials (printed on first start) for up to `ms`.
export async function waitForCredentials(server, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const c = server.credentials();
    if (c || Date.now() > deadline || server.exit) return c;
    await sleep(50);
  }
}
