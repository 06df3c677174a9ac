// One suite of MCP calls through the official client of each protocol era, against the real
// service on a loopback port (SQLite, small demo universe, fixed clock): every tool with
// arguments that reach demo data, one call with a bad argument, every resource, the resource
// templates, every prompt with its arguments. The first client's answers are pinned against the
// registry, the REST door and the resource and prompt builders; every other client and revision
// must then answer the same JSON, step by step (the revision's own envelope fields aside).
//
// Each client gets a fresh paid key, so the only answer that depends on the caller — health's
// keyPrefix — is the client's own, and its callsToday is the same for all: health is the last
// tool of the registry, so it is the 11th counted call of the key (10 tools before it, itself
// included; tools/list, resources and prompts are free).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildPrompts } from '../../src/http/mcp-prompts.js';
import { RESOURCES } from '../../src/http/mcp-resources.js';
import { TOOLS } from '../../src/tools/registry.js';
import { inspectorCli, sdkV1, sdkV2, type Json, type McpClientDriver, type RecordedDriver } from '../support/mcp-clients.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

interface Step {
  /** e.g. `tools/call get_rankings`. */
  name: string;
  result: Json;
}

/** Arguments of each tool that reach demo data; `kr` and `us` are codes of the demo universe. */
function toolArguments(kr: string, us: string): Record<string, Json> {
  return {
    search_stocks: { q: 'a', limit: 5 },
    get_stock_score: { code: kr },
    get_rankings: { market: 'KR,US', limit: 5 },
    get_trade_total: { from: '2020-01', to: '2020-12' },
    get_sector_exports: { top: 5 },
    get_stock_snapshot: { code: us },
    get_valuation_band: { code: us, type: 'pbr', from: '2018-01-01' },
    get_sector_percentile: { code: kr, cohort: 'market' },
    get_price_history: { code: kr, interval: 'month', limit: 24 },
    screen_stocks: { market: 'KR,US', filters: [{ field: 'roe', min: 5 }], sort: { field: 'per', order: 'asc' }, limit: 5 },
    health: {},
  };
}

/** A bad argument: the market must be KR, US or KR,US. */
const BAD_CALL = { name: 'get_rankings', args: { market: 'JP' } };

const PROMPT_ARGUMENTS: Record<string, Record<string, string>> = {
  explain_stock: { stock: '성산전자' },
  compare_stocks: { codes: '390510, FENI' },
  korea_export_brief: { months: '6' },
  screen_stocks: { request: '코스피 반도체 중 ROE 15% 이상, PER 10 이하' },
};

/** Runs the suite through `client`, in one fixed order. */
async function runSuite(client: McpClientDriver, args: Record<string, Json>): Promise<Step[]> {
  const steps: Step[] = [];
  const step = async (name: string, result: Promise<Json>) => void steps.push({ name, result: await result });
  await step('tools/list', client.listTools());
  for (const tool of TOOLS) await step(`tools/call ${tool.name}`, client.callTool(tool.name, args[tool.name]!));
  await step(`tools/call ${BAD_CALL.name} (bad argument)`, client.callTool(BAD_CALL.name, BAD_CALL.args));
  await step('resources/list', client.listResources());
  for (const { uri } of RESOURCES) await step(`resources/read ${uri}`, client.readResource(uri));
  await step('resources/templates/list', client.listResourceTemplates());
  await step('prompts/list', client.listPrompts());
  for (const [name, promptArgs] of Object.entries(PROMPT_ARGUMENTS)) await step(`prompts/get ${name}`, client.getPrompt(name, promptArgs));
  return steps;
}

/** The step's result with this client's key prefix (health's keyPrefix, in its structured and text forms) made neutral. */
const neutral = (result: Json, key: string): Json => JSON.parse(JSON.stringify(result).replaceAll(key.slice(0, 16), '<keyPrefix>')) as Json;

const stepResult = (steps: Step[], name: string): Json => {
  const found = steps.find((s) => s.name === name);
  assert.ok(found, name);
  return found.result;
};

describe('MCP: one suite through the clients of both protocol eras', () => {
  let t: TestServer;
  let endpoint: string;
  let args: Record<string, Json>;
  /** The reference: the SDK v1 client at 2025-11-25, pinned against the registry and the REST door. */
  let reference: Step[] = [];
  let referenceKey: string;

  before(async () => {
    t = await startTestServer();
    endpoint = `${t.url}/api/mcp`;
    const key = await t.newKey('paid');
    const all = (await get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    args = toolArguments(all.rows.find((r) => r.market === 'KR')!.ticker, all.rows.find((r) => r.market === 'US')!.ticker);
  });
  after(() => t.close());

  /** Runs the suite through a client made with a fresh key; closes it. */
  async function through<D extends McpClientDriver>(open: (key: string) => Promise<D> | D): Promise<{ steps: Step[]; key: string; client: D }> {
    const key = await t.newKey('paid');
    const client = await open(key);
    try {
      return { steps: await runSuite(client, args), key, client };
    } finally {
      await client.close();
    }
  }

  /** Every step's answer equals the reference's, the caller's key prefix aside. */
  function assertSameAsReference(label: string, steps: Step[], key: string): void {
    assert.deepEqual(
      steps.map((s) => s.name),
      reference.map((s) => s.name),
    );
    for (const [i, s] of steps.entries()) assert.deepEqual(neutral(s.result, key), neutral(reference[i]!.result, referenceKey), `${label}: ${s.name}`);
  }

  /** A 2025-era client proposed `version` in initialize and sent it in MCP-Protocol-Version on every later POST. */
  function assertSpoke2025(client: RecordedDriver, version: string): void {
    const posts = client.sent.filter((r) => r.httpMethod === 'POST');
    assert.equal(posts[0]?.bodyMethod, 'initialize');
    assert.equal(posts[0]?.proposed, version);
    assert.ok(posts.length > 20, `${posts.length} POSTs`);
    assert.deepEqual(new Set(posts.slice(1).map((r) => r.protocolVersion)), new Set([version]));
  }

  it('SDK v1 client, 2025-11-25: the reference answers, pinned against the registry, the REST door and the builders', async () => {
    const { steps, key, client } = await through((k) => sdkV1(endpoint, k, '2025-11-25'));
    reference = steps;
    referenceKey = key;
    assertSpoke2025(client, '2025-11-25');

    // tools/list: every tool of the registry, in its order, with its title, description and schemas.
    const tools = stepResult(steps, 'tools/list').tools as { name: string; title: string; description: string; inputSchema: { type: string }; outputSchema: { type: string } }[];
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.title, tool.description]),
      TOOLS.map((tool) => [tool.name, tool.title, tool.description]),
    );
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
    }

    // Every tool answered with data; the rankings are the REST door's body for the same query.
    for (const tool of TOOLS) {
      const result = stepResult(steps, `tools/call ${tool.name}`);
      assert.equal(result.isError, undefined, `${tool.name}: ${JSON.stringify(result.content)}`);
      assert.equal(typeof result.structuredContent, 'object', tool.name);
    }
    const rest = await get(`${t.url}/api/public/v2/rankings?market=KR,US&limit=5`, key);
    assert.deepEqual(stepResult(steps, 'tools/call get_rankings').structuredContent, rest.body);
    const health = stepResult(steps, 'tools/call health').structuredContent as { keyPrefix: string; callsToday: number; plan: string };
    assert.deepEqual([health.keyPrefix, health.callsToday, health.plan], [key.slice(0, 16), 11, 'paid']);

    // The bad argument: an isError result naming the allowed values, no structured content.
    assert.deepEqual(stepResult(steps, 'tools/call get_rankings (bad argument)'), {
      content: [{ type: 'text', text: 'invalid_parameter: parameter \'market\' "JP" is not an allowed value; allowed: one of "KR", "US", "KR,US"; default "KR"' }],
      isError: true,
    });

    // Resources: the five, each read answering the text its builder makes from the served dataset.
    const resources = stepResult(steps, 'resources/list').resources as { uri: string; name: string; mimeType: string }[];
    assert.deepEqual(
      resources.map((r) => [r.uri, r.name, r.mimeType]),
      RESOURCES.map((r) => [r.uri, r.name, r.mimeType]),
    );
    const dataset = t.app.holder.current;
    assert.ok(dataset);
    for (const resource of RESOURCES) {
      assert.deepEqual(stepResult(steps, `resources/read ${resource.uri}`), { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.read(() => dataset) }] });
    }
    assert.deepEqual(stepResult(steps, 'resources/templates/list'), { resourceTemplates: [] });

    // Prompts: every prompt of the builder, each answering the builder's text for its arguments.
    const prompts = buildPrompts(TOOLS);
    assert.deepEqual(
      (stepResult(steps, 'prompts/list').prompts as { name: string }[]).map((p) => p.name),
      prompts.map((p) => p.name),
    );
    assert.deepEqual(Object.keys(PROMPT_ARGUMENTS), prompts.map((p) => p.name));
    for (const prompt of prompts) {
      assert.deepEqual(stepResult(steps, `prompts/get ${prompt.name}`), {
        description: prompt.description,
        messages: [{ role: 'user', content: { type: 'text', text: prompt.text(PROMPT_ARGUMENTS[prompt.name]!) } }],
      });
    }
  });

  it('SDK v1 client, 2025-06-18: the same answers', async () => {
    const { steps, key, client } = await through((k) => sdkV1(endpoint, k, '2025-06-18'));
    assertSpoke2025(client, '2025-06-18');
    assertSameAsReference(client.label, steps, key);
  });

  for (const version of ['2025-11-25', '2025-06-18'] as const) {
    it(`SDK v2 client in its legacy mode, ${version}: the same answers`, async () => {
      const { steps, key, client } = await through((k) => sdkV2(endpoint, k, version));
      assert.deepEqual(client.negotiated, { era: 'legacy', version });
      assertSpoke2025(client, version);
      assertSameAsReference(client.label, steps, key);
    });
  }

  it('MCP Inspector CLI 1.x, 2025-11-25: the same answers', async () => {
    const { steps, key, client } = await through((k) => inspectorCli(endpoint, k));
    assertSameAsReference(client.label, steps, key);
  });
});
