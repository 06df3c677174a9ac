// The stdio bridge: an MCP client speaking stdio sees the same nine tools and gets the
// service's own answers (forwarded with the configured key).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

describe('stdio MCP bridge', () => {
  let t: TestServer;
  let client: Client;
  let key: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/cli/mcp-stdio.ts'],
        env: { ...(process.env as Record<string, string>), SERVICE_URL: t.url, SERVICE_API_KEY: key },
      }),
    );
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists the ten tools and forwards calls to the service', async () => {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 10);
    const result = await client.callTool({ name: 'get_trade_total', arguments: { from: '2025-01', to: '2025-03' } });
    // Long series come over MCP in the compact form by default, as REST gives them with format=columns.
    const rest = (await get(`${t.url}/api/public/v2/exports/total?from=2025-01&to=2025-03&format=columns`, key)).body;
    assert.deepEqual(result.structuredContent, rest);
    const bad = await client.callTool({ name: 'get_rankings', arguments: { limit: 0 } });
    assert.equal(bad.isError, true);
    assert.match((bad.content as { text: string }[])[0]!.text, /parameter 'limit'/);
  });
});
