// Unit test of the one function that reads the demo owner's credentials from
// the server's output (its exact wording belongs to the server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDemoCredentials } from './lib/server.mjs';

test('parseDemoCredentials reads the usual shapes of the sign-in line', () => {
  const want = { email: 'owner@demo.local', password: 's3cr3t-Pw_1' };
  const cases = [
    ['demo owner: owner@demo.local password: s3cr3t-Pw_1'],
    ['Sign in as owner@demo.local with password "s3cr3t-Pw_1"'],
    ['level=INFO msg="demo owner created; password shown once" email=owner@demo.local password=s3cr3t-Pw_1'],
    ['Demo sign-in (shown once):', '  email:    owner@demo.local', '  password: s3cr3t-Pw_1'],
    ['kobana-dunning MCP endpoint: http://127.0.0.1:1/mcp', 'demo owner owner@demo.local, password (shown once): s3cr3t-Pw_1'],
    ['{"msg":"demo owner","email":"owner@demo.local","password":"s3cr3t-Pw_1"}'],
    // What `kobana-mcp serve` prints today (cmd/kobana-mcp/database.go).
    ['Demo organization "Demo" created (first start). Sign in with', '  email:    owner@demo.local', '  password: s3cr3t-Pw_1',
      'The password is shown only now; change it with: kobana-mcp users set-password --email owner@demo.local'],
  ];
  for (const lines of cases) assert.deepEqual(parseDemoCredentials(lines), want, lines.join(' | '));
  assert.equal(parseDemoCredentials(['kadu MCP endpoint: http://127.0.0.1:1/mcp']), null);
});
