// Host and Origin against the configured public origin (PUBLIC_URL): its host (with or without
// the default port, or named by a trusted proxy's X-Forwarded-Host) and loopback are answered;
// any other Host, as a DNS-rebinding page sends, is 403 on both doors (the probes excepted); a
// browser Origin of the public origin is allowed at /api/mcp. Without PUBLIC_URL nothing changes.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';

/** One request with exactly these headers (fetch cannot set Host). */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('Host and Origin with PUBLIC_URL', () => {
  let t: TestServer;
  let key: string;
  before(async () => {
    t = await startTestServer({ PUBLIC_URL: 'https://stocks.example.com', TRUST_PROXY: 'loopback' });
    key = await t.newKey('paid');
  });
  after(() => t.close());

  const rest = (host: string, extra: Record<string, string> = {}) => send(t.url, 'GET', '/api/public/v2/health', { host, authorization: `Bearer ${key}`, ...extra });
  const mcp = (host: string, extra: Record<string, string> = {}) =>
    send(t.url, 'POST', '/api/mcp', { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra }, LIST);

  it('answers the public host, with or without :443, and loopback at any port', async () => {
    for (const host of ['stocks.example.com', 'STOCKS.example.com:443', '127.0.0.1:1', 'localhost', '[::1]:8080']) {
      assert.equal((await rest(host)).status, 200, host);
      assert.equal((await mcp(host)).status, 200, host);
    }
  });

  it('refuses any other host on both doors, and still answers the probes', async () => {
    for (const host of ['evil.example', 'stocks.example.com:8443', 'stocks.example.com.evil.example']) {
      const r = await rest(host);
      assert.equal(r.status, 403, host);
      assert.equal((JSON.parse(r.text) as { code: string }).code, 'forbidden');
      const m = await mcp(host);
      assert.equal(m.status, 403, host);
      assert.deepEqual(JSON.parse(m.text), { jsonrpc: '2.0', id: null, error: { code: -32003, message: 'host not allowed' } });
    }
    assert.equal((await send(t.url, 'GET', '/healthz', { host: '10.0.0.7:8080' })).status, 200);
  });

  it('takes the host a trusted proxy names in X-Forwarded-Host', async () => {
    // The test's client is on loopback, which TRUST_PROXY=loopback trusts.
    assert.equal((await rest('10.0.0.7:8080', { 'x-forwarded-host': 'stocks.example.com' })).status, 200);
    assert.equal((await rest('stocks.example.com', { 'x-forwarded-host': 'evil.example' })).status, 403);
  });

  it('allows a browser Origin of the public origin at /api/mcp; a foreign one stays 403', async () => {
    assert.equal((await mcp('stocks.example.com', { origin: 'https://stocks.example.com' })).status, 200);
    assert.equal((await mcp('stocks.example.com', { origin: 'https://evil.example' })).status, 403);
  });
});

describe('Host without PUBLIC_URL', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('answers any Host, as before', async () => {
    const key = await t.newKey('paid');
    assert.equal((await send(t.url, 'GET', '/api/public/v2/health', { host: 'any.example', authorization: `Bearer ${key}` })).status, 200);
  });
});
