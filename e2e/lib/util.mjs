// Small helpers shared by the e2e test: bounded waits, free ports, deferreds.
import net from 'node:net';

// withTimeout rejects with a message naming the step when `promise` does not
// settle within `ms`, so a stuck step fails instead of hanging the run.
export function withTimeout(promise, ms, step) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${step}`)), ms);
  });
  return Promise.race([Promise.resolve(promise), timeout]).finally(() => clearTimeout(timer));
}

export function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  promise.catch(() => {}); // observed later; never an unhandled rejection
  return { promise, resolve, reject };
}

// freePort asks the kernel for a free loopback port. The port is released
// before the server binds it; on a CI machine the race is negligible.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = ms => new Promise(r => setTimeout(r, ms));

// errText renders an error with its cause chain on one line for messages.
export function errText(err) {
  const parts = [];
  for (let e = err, i = 0; e && i < 5; e = e.cause, i++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
  return parts.join(' <- caused by: ');
}
