// The MCP server factory (src/http/mcp-server.ts) under the SDK's own 2026-07-28 entry, without
// the door: the cache hint of a resource built from the served data (a template's read included)
// runs to the next refresh.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { ToolRunner } from '../../src/http/invoke.js';
import { createMcpService, LIST_TTL_MS } from '../../src/http/mcp-server.js';
import type { ServedDataset } from '../../src/serving/dataset.js';
import { TOOLS } from '../../src/tools/registry.js';

const NOW = Date.parse('2026-11-20T03:00:00Z');
const V = '2026-07-28';

/** A served dataset with only what the resources read; the next refresh `inMs` after NOW, or none. */
function runnerWith(inMs: number | null): ToolRunner {
  const dataset = {
    source: 'demo',
    updatedAt: '2026-11-20T12:00:00+09:00',
    asOf: '2026-11-20',
    nextRefreshAt: inMs === null ? null : new Date(NOW + inMs),
    sources: [],
    sectors: () => [{ market: 'KR', sector: 'Banks', stocks: 3 }],
  } as unknown as ServedDataset;
  return { dataset: () => dataset } as unknown as ToolRunner;
}

async function read(runner: ToolRunner, uri: string): Promise<Record<string, unknown>> {
  const service = createMcpService({ runner, clock: () => new Date(NOW), version: '1.0.0', tools: TOOLS });
  const handler = createMcpHandler(service.factory, { legacy: 'reject' });
  const envelope = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri, _meta: envelope } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'resources/read', 'mcp-name': uri };
  try {
    const response = await handler.fetch(new Request('http://localhost/api/mcp', { method: 'POST', headers, body }));
    assert.equal(response.status, 200);
    return ((await response.json()) as { result: Record<string, unknown> }).result;
  } finally {
    await handler.close();
  }
}

describe('MCP server cache hints (2026-07-28)', () => {
  it('a resource built from the served data may be kept until the next refresh; a constant one for the list hint', async () => {
    // Next refresh 90 s after the clock: ttlMs = 90,000; a resource template's read (sectors://KR) as well.
    for (const uri of ['stock-data://sources', 'stock-data://sectors', 'sectors://KR']) {
      const result = await read(runnerWith(90_000), uri);
      assert.deepEqual([result.ttlMs, result.cacheScope], [90_000, 'public'], uri);
    }
    // No refresh scheduled: nothing says how long the data holds, so 0.
    assert.equal((await read(runnerWith(null), 'stock-data://sources')).ttlMs, 0);
    assert.equal((await read(runnerWith(null), 'sectors://KR')).ttlMs, 0);
    // A refresh already due (the clock past it, the new data not swapped in yet): 0, never negative.
    assert.equal((await read(runnerWith(-5_000), 'stock-data://sources')).ttlMs, 0);
    // The formula is built from the code: the list hint, an hour.
    const formula = await read(runnerWith(90_000), 'stock-data://formula/v3');
    assert.deepEqual([formula.ttlMs, formula.cacheScope], [LIST_TTL_MS, 'public']);
    assert.equal(LIST_TTL_MS, 3_600_000);
  });
});
