// One suite of MCP calls through the official client of each protocol era, against the real
// service on a loopback port (SQLite, or PostgreSQL + Redis from mcp-eras.pg.test.ts; small demo
// universe, fixed clock): every tool with arguments that reach demo data, one call with a bad
// argument, every resource, the resource templates, every prompt with its arguments. The first
// client's answers are pinned against the registry, the REST door and the resource and prompt
// builders; every other client and revision must then answer the same JSON, step by step (the
// revision's own envelope fields aside).
//
// Each client gets a fresh paid key, so the only answer that depends on the caller — health's
// keyPrefix — is the client's own, and its callsToday is the same for all: health is the last
// tool of the registry, so it is the 11th counted call of the key (10 tools before it, itself
// included; tools/list, resources and prompts are free).
//
// Then a connector-style client of the SDK v2 signs in through the OAuth page in Chromium (as
// test/oauth/connector.test.ts does with the v1 client) and runs the same suite with its token,
// answering as a key of its own does through the SDK v1 client.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { VERSION } from '../../src/app.js';
import { buildPrompts } from '../../src/http/mcp-prompts.js';
import { RESOURCES } from '../../src/http/mcp-resources.js';
import { buildTemplates } from '../../src/http/mcp-templates.js';
import { TOOLS } from '../../src/tools/registry.js';
import { loopbackServer, startOAuthServer } from '../oauth/helpers.js';
import { openPage, skipBrowser } from '../support/browser.js';
import { inspectorCli, sdkV1, sdkV2, sdkV2Client, type Json, type McpClientDriver, type RecordedDriver } from '../support/mcp-clients.js';
import { BACKEND, get, startTestServer, type TestServer } from '../support/server.js';

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

/** One client's answers, and the key it called with. */
interface Run {
  steps: Step[];
  key: string;
  /** The server's identity as the SDK client learnt it at connect; undefined for the Inspector CLI. */
  serverInfo?: Json | undefined;
}

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

/** The 2026-07-28 revision's cache hints (SEP-2549), on list and read results only; the 2025 revisions have none. */
const CACHE_HINTS = ['ttlMs', 'cacheScope'];
const CACHEABLE = /^(tools\/list|resources\/list|resources\/read|resources\/templates\/list|prompts\/list)\b/;
/** Where a 2026-07-28 server names itself on every result (`_meta`), instead of once in initialize's answer. */
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** A 2026-07-28 result without its envelope: the cache hints and the `_meta` server identity. */
function withoutEnvelope(result: Json): Json {
  const rest = { ...result };
  for (const hint of CACHE_HINTS) delete rest[hint];
  delete rest._meta;
  return rest;
}

/** The step's result with this client's key prefix (health's keyPrefix, in its structured and text forms) made neutral. */
const neutral = (result: Json, key: string): Json => JSON.parse(JSON.stringify(result).replaceAll(key.slice(0, 16), '<keyPrefix>')) as Json;

const stepResult = (steps: Step[], name: string): Json => {
  const found = steps.find((s) => s.name === name);
  assert.ok(found, name);
  return found.result;
};

/** Every step's answer equals the reference's, each caller's key prefix aside. */
function assertSameAnswers(label: string, run: Run, reference: Run): void {
  assert.deepEqual(
    run.steps.map((s) => s.name),
    reference.steps.map((s) => s.name),
  );
  for (const [i, s] of run.steps.entries()) assert.deepEqual(neutral(s.result, run.key), neutral(reference.steps[i]!.result, reference.key), `${label}: ${s.name}`);
}

/**
 * The 2026-07-28 era's results: cache hints on lists and reads only, and on every result the
 * server's identity in `_meta`, the one a 2025 client got from initialize; without that envelope,
 * the reference's answers.
 */
function assertSameAnswers2026(label: string, run: Run, reference: Run): void {
  assert.ok(reference.serverInfo);
  assert.deepEqual(run.serverInfo, reference.serverInfo, 'server/discover names the server as initialize does');
  for (const s of run.steps) {
    const hints = Object.keys(s.result).filter((k) => CACHE_HINTS.includes(k));
    assert.deepEqual(hints, CACHEABLE.test(s.name) ? CACHE_HINTS : [], s.name);
    assert.deepEqual(s.result._meta, { [SERVER_INFO_META]: reference.serverInfo }, s.name);
  }
  assertSameAnswers(label, { key: run.key, steps: run.steps.map((s) => ({ name: s.name, result: withoutEnvelope(s.result) })) }, reference);
}

/** A 2025-era client proposed `version` in initialize and sent it in MCP-Protocol-Version on every later POST. */
function assertSpoke2025(client: RecordedDriver, version: string): void {
  const posts = client.sent.filter((r) => r.httpMethod === 'POST');
  assert.equal(posts[0]?.bodyMethod, 'initialize');
  assert.equal(posts[0]?.proposed, version);
  assert.ok(posts.length > 20, `${posts.length} POSTs`);
  assert.deepEqual(new Set(posts.slice(1).map((r) => r.protocolVersion)), new Set([version]));
  assert.equal(client.sent.filter((r) => r.mcpMethod !== null).length, 0, 'no Mcp-Method header before 2026-07-28');
}

/**
 * A 2026-07-28 client sent no initialize; server/discover first; every POST carried
 * MCP-Protocol-Version 2026-07-28 and an Mcp-Method header equal to its body's method.
 */
function assertSpoke2026(client: RecordedDriver): void {
  const posts = client.sent.filter((r) => r.httpMethod === 'POST');
  assert.equal(posts[0]?.bodyMethod, 'server/discover');
  assert.ok(posts.length > 20, `${posts.length} POSTs`);
  assert.equal(posts.filter((r) => r.bodyMethod === 'initialize').length, 0);
  for (const post of posts) assert.deepEqual([post.protocolVersion, post.mcpMethod], ['2026-07-28', post.bodyMethod]);
}

/** Runs the suite through a client of `t` made with a fresh paid key; closes it. */
async function through<D extends McpClientDriver>(t: TestServer, open: (key: string) => Promise<D> | D): Promise<Run & { client: D }> {
  const key = await t.newKey('paid');
  const client = await open(key);
  try {
    const steps = await runSuite(client, await demoArguments(t));
    return { steps, key, client, serverInfo: 'serverInfo' in client ? (client.serverInfo as Json | undefined) : undefined };
  } finally {
    await client.close();
  }
}

/** The tools' arguments with a KR and a US code of the demo universe, found once per server through the REST door (with a key of its own). */
async function demoArguments(t: TestServer): Promise<Record<string, Json>> {
  return (demoArgumentsOf[t.url] ??= (async () => {
    const key = await t.newKey('paid');
    const all = (await get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    return toolArguments(all.rows.find((r) => r.market === 'KR')!.ticker, all.rows.find((r) => r.market === 'US')!.ticker);
  })());
}
const demoArgumentsOf: Record<string, Promise<Record<string, Json>>> = {};

describe(`MCP: one suite through the clients of both protocol eras (${BACKEND})`, () => {
  let t: TestServer;
  let endpoint: string;
  /** The reference: the SDK v1 client at 2025-11-25, pinned against the registry, the REST door and the builders. */
  let reference: Run;

  before(async () => {
    t = await startTestServer();
    endpoint = `${t.url}/api/mcp`;
  });
  after(() => t.close());

  it('SDK v1 client, 2025-11-25: the reference answers, pinned against the registry, the REST door and the builders', async () => {
    const { steps, key, client, serverInfo } = await through(t, (k) => sdkV1(endpoint, k, '2025-11-25'));
    reference = { steps, key, serverInfo };
    assertSpoke2025(client, '2025-11-25');
    assert.deepEqual(serverInfo, { name: 'stock-data-service', title: 'Stock scoring and export data', version: VERSION });
    // No 2026-07-28 envelope in a 2025 answer.
    for (const s of steps) assert.deepEqual(Object.keys(s.result).filter((k) => [...CACHE_HINTS, '_meta'].includes(k)), [], s.name);

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
    assert.deepEqual(stepResult(steps, 'resources/templates/list'), {
      resourceTemplates: buildTemplates(TOOLS).map(({ name, title, uriTemplate, description }) => ({ name, title, uriTemplate, description, mimeType: 'application/json' })),
    });

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
    const { steps, key, client } = await through(t, (k) => sdkV1(endpoint, k, '2025-06-18'));
    assertSpoke2025(client, '2025-06-18');
    assertSameAnswers(client.label, { steps, key }, reference);
  });

  for (const version of ['2025-11-25', '2025-06-18'] as const) {
    it(`SDK v2 client in its legacy mode, ${version}: the same answers`, async () => {
      const { steps, key, client } = await through(t, (k) => sdkV2(endpoint, k, version));
      assert.deepEqual(client.negotiated, { era: 'legacy', version });
      assertSpoke2025(client, version);
      assertSameAnswers(client.label, { steps, key }, reference);
    });
  }

  it('SDK v2 client pinned to 2026-07-28 (stateless, server/discover): the same answers, with cache hints on lists and reads', async () => {
    const run = await through(t, (k) => sdkV2(endpoint, k, '2026-07-28'));
    assert.deepEqual(run.client.negotiated, { era: 'modern', version: '2026-07-28' });
    assertSpoke2026(run.client);
    assertSameAnswers2026(run.client.label, run, reference);
  });

  it('SDK v2 client in its auto mode: server/discover answers as a 2026-07-28 server, so it speaks that revision; the same answers', async () => {
    const run = await through(t, (k) => sdkV2(endpoint, k, 'auto'));
    assert.deepEqual(run.client.negotiated, { era: 'modern', version: '2026-07-28' });
    assertSpoke2026(run.client);
    assertSameAnswers2026(run.client.label, run, reference);
  });

  it('MCP Inspector CLI 1.x, 2025-11-25: the same answers', async () => {
    const { steps, key, client } = await through(t, (k) => inspectorCli(endpoint, k));
    assertSameAnswers(client.label, { steps, key }, reference);
  });
});

/** The client's side of OAuth, in memory, as a connector keeps it (the SDK v2 provider interface). */
class MemoryProvider implements OAuthClientProvider {
  info: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  readonly stateValue = randomBytes(8).toString('hex');
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Connector Test v2', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state = () => this.stateValue;
  clientInformation = () => this.info;
  saveClientInformation = (info: StoredOAuthClientInformation) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: StoredOAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
  // Kept beside the verifier: the client checks on the callback leg that the code goes back to the authorization server it came from.
  saveDiscoveryState = (state: OAuthDiscoveryState) => void (this.discovery = state);
  discoveryState = () => this.discovery;
}

describe(`MCP over OAuth: the SDK v2 client signs in through the browser page, then answers the suite with its token (${BACKEND})`, { skip: skipBrowser }, () => {
  let t: TestServer;
  let callback: Awaited<ReturnType<typeof loopbackServer>>;
  before(async () => {
    t = await startOAuthServer();
    callback = await loopbackServer();
  });
  after(async () => {
    await callback?.close();
    await t?.close();
  });

  for (const version of ['2026-07-28', '2025-11-25'] as const) {
    it(`${version}: sign-in in Chromium, then every tool, resource and prompt with the token, as the key answers them`, async () => {
      const endpoint = new URL(`${t.url}/api/mcp`);
      const key = await t.newKey('paid');
      const provider = new MemoryProvider(`${callback.url}/callback`);
      // 1. Without a token: the client reads the 401's resource_metadata, discovers, registers and sends the person to sign in.
      await assert.rejects(sdkV2Client(version).connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider })), UnauthorizedError);
      const authUrl = provider.authorizationUrl!;
      assert.equal(authUrl.origin + authUrl.pathname, `${t.url}/oauth/authorize`);
      assert.equal(authUrl.searchParams.get('resource'), endpoint.href);
      assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');

      // 2. The person signs in in Chromium with the key and allows.
      const { browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 800, height: 900 });
      let landed: URL;
      try {
        await page.goto(authUrl.toString());
        assert.match((await page.textContent('body')) ?? '', /Connector Test v2.*asks to use/s);
        await page.fill('#api_key', key);
        await page.click('button[value=review]');
        assert.equal(await page.textContent('#plan'), 'paid');
        await Promise.all([page.waitForURL(`${callback.url}/callback?**`), page.click('button[value=allow]')]);
        landed = new URL(page.url());
      } finally {
        await browser.close();
      }
      assert.deepEqual(pageErrors, []);
      assert.equal(landed.searchParams.get('state'), provider.stateValue);

      // 3. The client redeems the code (checking iss, RFC 9207), then runs the suite with the token.
      await new StreamableHTTPClientTransport(endpoint, { authProvider: provider }).finishAuth(landed.searchParams);
      assert.match(provider.saved?.access_token ?? '', /^mcp_at_/);
      const viaToken = await sdkV2(endpoint.href, provider, version);
      let steps: Step[];
      try {
        steps = await runSuite(viaToken, await demoArguments(t));
      } finally {
        await viaToken.close();
      }
      // The same suite with a key of its own, through the SDK v1 client: the token acts as its key.
      const viaKey = await through(t, (k) => sdkV1(endpoint.href, k, '2025-11-25'));
      if (version === '2026-07-28') {
        assert.deepEqual(viaToken.negotiated, { era: 'modern', version });
        assertSpoke2026(viaToken);
        assertSameAnswers2026(viaToken.label, { steps, key, serverInfo: viaToken.serverInfo }, viaKey);
      } else {
        assert.deepEqual(viaToken.negotiated, { era: 'legacy', version });
        assertSpoke2025(viaToken, version);
        assertSameAnswers(viaToken.label, { steps, key }, viaKey);
      }
    });
  }
});
