// The test's own loopback HTTP servers: the OAuth redirect_uri (callback)
// and the HTTPS server that publishes the Client ID Metadata Document.
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deferred } from './util.mjs';

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

function closeServer(server) {
  return new Promise(resolve => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

// startCallbackServer runs the redirect_uri http://127.0.0.1:PORT/callback.
// `next()` resolves with the URLSearchParams of the first redirect it gets.
export async function startCallbackServer() {
  const hit = deferred();
  const hits = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    hits.push(`${req.method} ${url.pathname}${url.search}`);
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const ok = url.searchParams.has('code');
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ok
      ? '<!doctype html><title>Signed in</title><p id="e2e-callback">Authorization received; the test client takes it from here.</p>'
      : `<!doctype html><title>Authorization failed</title><p id="e2e-callback">${escapeHtml(url.searchParams.get('error') ?? 'no code')}</p>`);
    hit.resolve(url.searchParams);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/callback`,
    hits,
    next: () => hit.promise,
    close: () => closeServer(server),
  };
}

// makeTestCA writes a throwaway CA and a server certificate for 127.0.0.1
// (and localhost) into `dir` with the openssl CLI, plus `trust-bundle.pem`:
// the system roots followed by the test CA, meant for the Go server's
// SSL_CERT_FILE so that it trusts the metadata document's HTTPS origin.
export function makeTestCA(dir) {
  const f = name => path.join(dir, name);
  const run = args => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
  writeFileSync(f('leaf.ext'), [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ].join('\n') + '\n');
  try {
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
      '-subj', '/CN=kobana-mcp e2e throwaway CA', '-keyout', f('ca.key'), '-out', f('ca.crt'),
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-subj', '/CN=127.0.0.1', '-keyout', f('leaf.key'), '-out', f('leaf.csr')]);
    run(['x509', '-req', '-in', f('leaf.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-days', '2', '-extfile', f('leaf.ext'), '-out', f('leaf.crt')]);
  } catch (err) {
    throw new Error(`openssl could not make the test certificate (needed for the https client metadata URL): ${err.stderr?.toString() || err.message}`);
  }
  const ca = readFileSync(f('ca.crt'), 'utf8');
  const system = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'].find(p => existsSync(p));
  writeFileSync(f('trust-bundle.pem'), (system ? readFileSync(system, 'utf8') + '\n' : '') + ca);
  return {
    caPem: ca,
    certPem: readFileSync(f('leaf.crt'), 'utf8') + ca,
    keyPem: readFileSync(f('leaf.key'), 'utf8'),
    bundlePath: f('trust-bundle.pem'),
  };
}

// startMetadataServer publishes JSON documents on https://127.0.0.1:PORT
// (or plain http when no certificate is given) and records who fetched them.
export async function startMetadataServer({ certPem, keyPem } = {}) {
  const docs = new Map();
  const requests = [];
  const handler = (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push({ method: req.method, path: url.pathname, userAgent: req.headers['user-agent'] ?? '', at: Date.now() });
    const doc = docs.get(url.pathname);
    if (req.method !== 'GET' || !doc) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = JSON.stringify(typeof doc === 'function' ? doc() : doc, null, 2);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  };
  const tls = Boolean(certPem && keyPem);
  const server = tls ? https.createServer({ cert: certPem, key: keyPem }, handler) : http.createServer(handler);
  const port = await listen(server);
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    origin,
    requests,
    publish(pathname, doc) { docs.set(pathname, doc); return origin + pathname; },
    close: () => closeServer(server),
  };
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}
