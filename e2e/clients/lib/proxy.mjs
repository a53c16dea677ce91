// A recording reverse proxy on loopback, for clients whose HTTP traffic a
// test cannot hook (the Inspector CLI runs in its own process). It forwards
// every request to the target unchanged but for Host, and records each
// JSON-RPC POST the way harness.mjs's recordingFetch does.
import http from 'node:http';

export async function recordingProxy(target) {
  const to = new URL(target);
  const trace = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry = { method: null, offered: null, header: req.headers['mcp-protocol-version'] ?? null, status: null, answered: null, error: null };
      if (req.method === 'POST') {
        try {
          const msg = JSON.parse(body.toString('utf8'));
          entry.method = msg.method ?? null;
          entry.offered = msg.params?.protocolVersion ?? msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? null;
        } catch {}
        trace.push(entry);
      }
      const up = http.request({
        hostname: to.hostname, port: to.port, path: req.url, method: req.method,
        headers: { ...req.headers, host: to.host }, timeout: 30_000,
      }, upRes => {
        entry.status = upRes.statusCode;
        res.writeHead(upRes.statusCode, upRes.headers);
        if (!(upRes.headers['content-type'] ?? '').includes('application/json')) {
          upRes.pipe(res);
          return;
        }
        const answer = [];
        upRes.on('data', c => answer.push(c));
        upRes.on('end', () => {
          const buf = Buffer.concat(answer);
          try {
            const msg = JSON.parse(buf.toString('utf8'));
            entry.answered = msg.result?.protocolVersion ?? null;
            entry.error = msg.error?.code ?? null;
          } catch {}
          res.end(buf);
        });
      });
      up.on('timeout', () => up.destroy(new Error('upstream timed out')));
      up.on('error', err => {
        entry.status = 502;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${err.message}`);
      });
      up.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    trace,
    close: () => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
