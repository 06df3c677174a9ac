// A connector-style client end to end: the official SDK v1 client's OAuth support
// (OAuthClientProvider, StreamableHTTPClientTransport with authProvider) discovers the
// authorization server from the 401, registers, and sends the person to the sign-in page, which
// is filled in real Chromium; the client then calls every tool with its token. Two instances
// share one store (and, on PostgreSQL, one Redis), behind one public origin: a token issued by
// one is honoured by the other, and revoking the key on one refuses the token on the other at once.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { TOOLS } from '../../src/tools/registry.js';
import { openPage, skipBrowser } from '../support/browser.js';
import { BACKEND, get, type TestServer } from '../support/server.js';
import { loopbackServer, rpc, sharedStoreEnv, startOAuthServer } from './helpers.js';

/** The client's side of OAuth, in memory, as a connector keeps it. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly stateValue = randomBytes(8).toString('hex');
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Connector Test', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state = () => this.stateValue;
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

describe(`OAuth connector end to end (SDK v1 client, Chromium, two instances, ${BACKEND})`, { skip: skipBrowser }, () => {
  let a: TestServer;
  let b: TestServer;
  let key: string;
  let callback: Awaited<ReturnType<typeof loopbackServer>>;
  let provider: MemoryProvider;
  const cleanups: (() => Promise<void> | void)[] = [];

  before(async () => {
    const shared = await sharedStoreEnv('o', cleanups);
    a = await startOAuthServer(shared);
    // The second instance answers at its own port but serves the same public origin (as behind one proxy).
    b = await startOAuthServer(shared, a.url);
    key = await a.newKey('paid');
    callback = await loopbackServer();
    provider = new MemoryProvider(`${callback.url}/callback`);
  });
  after(async () => {
    await callback?.close();
    await b?.close();
    await a?.close();
    for (const c of cleanups.reverse()) await c();
  });

  it('signs in through the browser page and calls every tool with the token', async () => {
    const mcpUrl = new URL(`${a.url}/api/mcp`);
    // 1. Unauthenticated: the SDK reads the 401's resource_metadata, discovers, registers, and redirects.
    const first = new Client({ name: 'connector', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })), UnauthorizedError);
    const authUrl = provider.authorizationUrl!;
    assert.equal(authUrl.origin + authUrl.pathname, `${a.url}/oauth/authorize`);
    assert.equal(authUrl.searchParams.get('resource'), `${a.url}/api/mcp`);
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');

    // 2. The person signs in in Chromium: the key, then what it allows, then Allow.
    const { browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 800, height: 900 });
    const violations: string[] = [];
    page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()));
    let landed: URL;
    try {
      await page.goto(authUrl.toString());
      assert.match(await page.textContent('body') ?? '', /Connector Test.*asks to use/s);
      await page.fill('#api_key', 'sk_live_not-a-real-key');
      await page.click('button[value=review]');
      assert.equal(await page.textContent('[role=alert]'), 'this is not a valid API key');
      await page.fill('#api_key', key);
      await page.click('button[value=review]');
      assert.equal(await page.textContent('#plan'), 'paid');
      assert.match((await page.textContent('#quota')) ?? '', /^100000 calls a day/);
      await Promise.all([page.waitForURL(`${callback.url}/callback?**`), page.click('button[value=allow]')]);
      landed = new URL(page.url());
    } finally {
      await browser.close();
    }
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(violations, []);
    assert.equal(landed.searchParams.get('iss'), a.url);
    assert.equal(landed.searchParams.get('state'), provider.stateValue);

    // 3. The client exchanges the code (PKCE verifier, resource) and calls every tool.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(landed.searchParams.get('code')!);
    assert.match(provider.saved?.access_token ?? '', /^mcp_at_/);
    const client = new Client({ name: 'connector', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      const all = (await get(`${a.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
      const kr = all.rows.find((r) => r.market === 'KR')!.ticker;
      const us = all.rows.find((r) => r.market === 'US')!.ticker;
      const args: Record<string, Record<string, unknown>> = {
        get_stock_score: { code: kr },
        get_rankings: { market: 'KR,US', limit: 5 },
        get_trade_total: { from: '2020-01', to: '2020-12' },
        get_sector_exports: { top: 5 },
        get_stock_snapshot: { code: us },
        get_valuation_band: { code: us, type: 'pbr', from: '2018-01-01' },
        get_sector_percentile: { code: kr, cohort: 'market' },
        get_price_history: { code: kr, interval: 'month', limit: 24 },
        health: {},
        search_stocks: { q: 'a', limit: 5 },
        screen_stocks: { market: 'KR,US', filters: [{ field: 'roe', min: 5 }], sort: { field: 'per', order: 'asc' }, limit: 5 },
      };
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
      for (const tool of tools) {
        const result = await client.callTool({ name: tool.name, arguments: args[tool.name] ?? {} });
        assert.ok(tool.name in args, `arguments for ${tool.name}`);
        assert.notEqual(result.isError, true, tool.name);
      }
      // Counted once per call on the key's own counter: 1 (the rankings call by key above) + one
      // per tool called by token (tools/list is not counted) + 1 (this health call by key).
      const health = (await get(`${a.url}/api/public/v2/health`, key)).body as { callsToday: number; plan: string };
      assert.equal(health.callsToday, 1 + tools.length + 1);
      assert.equal(health.plan, 'paid');
    } finally {
      await client.close();
    }
  });

  it('the other instance honours the token; revoking the key there refuses it here on the next request', async () => {
    const bearer = `Bearer ${provider.saved!.access_token}`;
    assert.equal((await rpc(b.url, bearer, 'tools/list')).status, 200);
    assert.equal((await rpc(a.url, bearer, 'tools/list')).status, 200);
    assert.equal(await b.app.store.access.revokeKey(key.slice(0, 16), new Date().toISOString()), true);
    const refused = await rpc(a.url, bearer, 'tools/list');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${a.url}/.well-known/oauth-protected-resource/api/mcp", scope="mcp", error="invalid_token"`);
  });
});
