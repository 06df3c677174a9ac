// Both doors over real HTTP on a loopback port: what inject() (the unit tier's door tests in
// test/http) does not go through — Node's HTTP parser and writer, the socket, keep-alive. One
// walk per door, against the started service (SQLite, small demo universe).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOOLS } from '../../src/tools/registry.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

describe('the doors over real HTTP', () => {
  let t: TestServer;
  let key: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
  });
  after(() => t.close());

  it('REST: a keyed GET answers JSON with its length, validators and limits; none without a key', async () => {
    assert.match(t.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(`${t.url}/api/public/v2/rankings?limit=3`, key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text), 'Content-Length counts bytes');
    assert.match(res.headers.get('etag') ?? '', /^"/);
    assert.equal(res.headers.get('ratelimit-policy')?.startsWith('"daily";'), true);
    assert.equal((res.body as { rows: unknown[] }).rows.length, 3);
    const again = await get(`${t.url}/api/public/v2/rankings?limit=3`, key, { 'if-none-match': res.headers.get('etag') ?? '' });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const anonymous = await get(`${t.url}/api/public/v2/rankings?limit=3`, null);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  });

  it('MCP: the official client lists the registry and calls a tool; the answer is the REST body', async () => {
    const client = new Client({ name: 'doors-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS.map((tool) => tool.name).sort());
      const result = await client.callTool({ name: 'get_rankings', arguments: { limit: 3 } });
      assert.equal(result.isError, undefined);
      const rest = await get(`${t.url}/api/public/v2/rankings?limit=3`, key);
      assert.deepEqual(result.structuredContent, rest.body);
    } finally {
      await client.close();
    }
  });
});
