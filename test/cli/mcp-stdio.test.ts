// The stdio bridge, started as the README's client set-up starts it (node and the launcher's
// absolute path, from another working directory, no build): an MCP client speaking stdio sees
// the service's own tools, resources and prompts and gets its answers (forwarded with the
// configured key).

import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { PREFIX_LENGTH } from '../../src/access/keys.js';
import { builtView, VIEW_URI } from '../../src/http/mcp-apps.js';
import { TOOLS } from '../../src/tools/registry.js';
import { ensureViewBuilt } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { sdkV1 } from '../support/mcp-clients.js';

const LAUNCHER = resolve(import.meta.dirname, '..', '..', 'bin', 'mcp-stdio.mjs');

describe('stdio MCP bridge', () => {
  let t: TestServer;
  let client: Client;
  let key: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    // What an assistant's config gives: a command, its arguments and the environment; the
    // launcher must not depend on the working directory (assistants start it elsewhere).
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', SERVICE_URL: t.url, SERVICE_API_KEY: key };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [LAUNCHER], env, cwd: tmpdir() }));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists the service\'s tools with their annotations and forwards calls', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS.map((x) => x.name).sort());
    assert.ok(tools.every((x) => x.annotations?.readOnlyHint === true && x.outputSchema?.type === 'object'));
    // A client that does not render MCP Apps is shown no view.
    assert.ok(tools.every((x) => x._meta === undefined));
    const result = await client.callTool({ name: 'get_trade_total', arguments: { from: '2025-01', to: '2025-03' } });
    // MCP gets long series in the compact form (the tool's MCP default); REST on request.
    const rest = (await get(`${t.url}/api/public/v2/exports/total?from=2025-01&to=2025-03&format=columns`, key)).body;
    assert.deepEqual(result.structuredContent, rest);
    const bad = await client.callTool({ name: 'get_rankings', arguments: { limit: 0 } });
    assert.equal(bad.isError, true);
    assert.match((bad.content as { text: string }[])[0]!.text, /parameter 'limit'/);
  });

  it('passes asOf through: an as-of call answers what REST answers for the same day', async () => {
    const tool = (await client.listTools()).tools.find((x) => x.name === 'get_rankings');
    assert.equal((tool?.inputSchema.properties as Record<string, { type?: string }>)['asOf']?.type, 'string');
    const result = await client.callTool({ name: 'get_rankings', arguments: { limit: 3, asOf: '2025-06-30' } });
    assert.equal(result.isError, undefined);
    const rest = (await get(`${t.url}/api/public/v2/rankings?limit=3&asOf=2025-06-30`, key)).body as { asOf: { date: string } };
    assert.equal(rest.asOf.date, '2025-06-30');
    // MCP's rankings limit default differs from REST's, so both ask for 3: the answers are one.
    assert.deepEqual(result.structuredContent, rest);
  });

  it('lists and reads the resources and lists and gets the prompts', async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'stock-data://formula/v3'));
    const formula = await client.readResource({ uri: 'stock-data://formula/v3' });
    assert.match((formula.contents[0] as { text: string }).text, /^# V3 formula/);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['compare_stocks', 'explain_stock', 'korea_export_brief', 'screen_stocks']);
    const prompt = await client.getPrompt({ name: 'korea_export_brief', arguments: { months: '6' } });
    assert.match((prompt.messages[0]!.content as { text: string }).text, /get_trade_total[\s\S]*get_sector_exports/);
    // The service's errors come through as they are.
    await assert.rejects(client.readResource({ uri: 'stock-data://nothing' }), (err: Error & { code?: number }) => err.code === -32602);
    // The resource templates, a read of one, and completions, as the service answers them.
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((r) => r.uriTemplate === 'stock://{market}/{code}/snapshot'));
    const direct = await sdkV1(`${t.url}/api/mcp`, key, '2025-11-25');
    try {
      const ref = { type: 'ref/resource' as const, uri: 'stock://{market}/{code}/snapshot' };
      const completed = await client.complete({ ref, argument: { name: 'code', value: 'a' } });
      assert.ok(completed.completion.values.length > 0);
      assert.deepEqual(completed, await direct.complete!({ ref, argument: { name: 'code', value: 'a' } }));
      const code = completed.completion.values[0]!;
      const uri = `stock://${/^\d{6}$/.test(code) ? 'KR' : 'US'}/${code}/snapshot`;
      assert.deepEqual(await client.readResource({ uri }), await direct.readResource(uri));
    } finally {
      await direct.close();
    }
  });

  it('serves a 2026-07-28 client (SDK v2, server/discover, no initialize) the same tools and answers', async () => {
    const modern = new ClientV2({ name: 'stdio-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', SERVICE_URL: t.url, SERVICE_API_KEY: key };
    await modern.connect(new StdioClientTransportV2({ command: process.execPath, args: [LAUNCHER], env, cwd: tmpdir() }));
    try {
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      const { tools } = await modern.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS.map((x) => x.name).sort());
      const result = await modern.callTool({ name: 'get_trade_total', arguments: { from: '2025-01', to: '2025-03' } });
      const rest = (await get(`${t.url}/api/public/v2/exports/total?from=2025-01&to=2025-03&format=columns`, key)).body;
      assert.deepEqual(result.structuredContent, rest);
      const formula = await modern.readResource({ uri: 'stock-data://formula/v3' });
      assert.match((formula.contents[0] as { text: string }).text, /^# V3 formula/);
    } finally {
      await modern.close();
    }
  });

  it('a stdio client that renders MCP Apps (initialize, or the 2026 envelope) is shown the view and reads it through the bridge', async () => {
    await ensureViewBuilt();
    const capabilities = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', SERVICE_URL: t.url, SERVICE_API_KEY: key };
    for (const negotiation of [{ supportedProtocolVersions: ['2025-11-25'] }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } }]) {
      const host = new ClientV2({ name: 'stdio-apps', version: '1.0.0' }, { capabilities, ...negotiation });
      await host.connect(new StdioClientTransportV2({ command: process.execPath, args: [LAUNCHER], env, cwd: tmpdir() }));
      try {
        const { tools } = await host.listTools();
        assert.deepEqual(tools.find((x) => x.name === 'get_price_history')?._meta, { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
        assert.equal(tools.find((x) => x.name === 'health')?._meta, undefined);
        const view = await host.readResource({ uri: VIEW_URI });
        assert.deepEqual(
          view.contents.map((c) => [c.uri, c.mimeType, 'text' in c ? c.text : null]),
          [[VIEW_URI, 'text/html;profile=mcp-app', builtView()]],
        );
      } finally {
        await host.close();
      }
    }
  });

  it("hands on the service's refusal: a tools/call as an isError result with its text, anything else as its JSON-RPC error", async () => {
    const doomed = await t.newKey('paid');
    const revoked = new Client({ name: 'stdio-revoked', version: '1.0.0' });
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', SERVICE_URL: t.url, SERVICE_API_KEY: doomed };
    await revoked.connect(new StdioClientTransport({ command: process.execPath, args: [LAUNCHER], env, cwd: tmpdir() }));
    try {
      assert.equal((await revoked.listPrompts()).prompts.length, 4);
      // Revoked after the bridge has connected: the service answers HTTP 401 with the JSON-RPC
      // error {code: -32001, message: 'unauthorized: the API key is not accepted: the key has been
      // revoked'} (mcp-errors.ts rpcErrorOf: `<code>: <detail>`; gate.ts keyRefusal's detail).
      assert.ok(await t.app.store.access.revokeKey(doomed.slice(0, PREFIX_LENGTH), t.clock.now.toISOString()));
      const call = await revoked.callTool({ name: 'get_trade_total', arguments: { from: '2025-01', to: '2025-03' } });
      assert.equal(call.isError, true);
      assert.deepEqual(call.content, [{ type: 'text', text: 'unauthorized: the API key is not accepted: the key has been revoked' }]);
      await assert.rejects(revoked.readResource({ uri: 'stock-data://formula/v3' }), (err: Error & { code?: number }) => err.code === -32001 && /revoked/.test(err.message));
    } finally {
      await revoked.close();
    }
  });

  it('without a key the bridge says what to set and exits', async () => {
    const bare = new Client({ name: 'no-key', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [LAUNCHER], env: { PATH: process.env.PATH ?? '' }, cwd: join(tmpdir()), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await assert.rejects(bare.connect(transport));
    assert.match(stderr, /set SERVICE_API_KEY/);
  });
});
