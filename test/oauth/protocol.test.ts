// The authorization server and the protected MCP endpoint over plain HTTP: discovery documents,
// the code grant with PKCE S256 and its refusals (wrong verifier, wrong resource, expired or
// reused code), refresh rotation, revocation through the key, 401/403 challenges, client ID
// metadata documents, CSRF, and a key-only deployment's answers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secretHash } from '../../src/oauth/model.js';
import type { KyselyStore } from '../../src/store/store.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { formSignIn, loopbackServer, pkcePair, register, rpc, startOAuthServer, tokenRequest } from './helpers.js';

describe('OAuth: authorization server and protected MCP endpoint', () => {
  let t: TestServer;
  let base: string;
  let resource: string;
  let key: string;
  let clientId: string;
  const redirectUri = 'http://127.0.0.1:9/callback';

  /** A fresh code for `key` through the sign-in form; returns it with its verifier. */
  async function code(k = key, extra: Record<string, string> = {}): Promise<{ code: string; verifier: string; location: URL }> {
    const { verifier, challenge } = pkcePair();
    const { location } = await formSignIn(base, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', resource, ...extra }, k);
    return { code: location.searchParams.get('code') ?? '', verifier, location };
  }
  const exchange = (c: string, verifier: string, extra: Record<string, string> = {}) =>
    tokenRequest(base, { grant_type: 'authorization_code', code: c, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource, ...extra });

  before(async () => {
    t = await startOAuthServer({ FREE_DAILY_QUOTA: '3' });
    base = t.url;
    resource = `${base}/api/mcp`;
    key = await t.newKey('paid');
    clientId = await register(base, redirectUri);
  });
  after(() => t.close());

  it('publishes RFC 9728 metadata (both paths) and RFC 8414 metadata naming this origin', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const prm = await get(`${base}${path}`, null);
      assert.equal(prm.status, 200);
      assert.deepEqual((prm.body as Record<string, unknown>).authorization_servers, [base]);
      assert.equal((prm.body as Record<string, unknown>).resource, resource);
    }
    const as = (await get(`${base}/.well-known/oauth-authorization-server`, null)).body as Record<string, unknown>;
    assert.equal(as.issuer, base);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(as.token_endpoint, `${base}/oauth/token`);
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
  });

  it('answers 401 with the resource metadata URL when no credential is sent, and ignores a token in the query string', async () => {
    const none = await rpc(base, null, 'tools/list');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp", scope="mcp"`);
    const { code: c, verifier } = await code();
    const tokens = (await exchange(c, verifier)).body;
    const inQuery = await rpc(base, null, 'tools/list', {}, `/api/mcp?access_token=${String(tokens.access_token)}`);
    assert.equal(inQuery.status, 401);
  });

  it('issues tokens for code + S256 verifier; the response carries iss and state; the token acts as its key', async () => {
    const { code: c, verifier, location } = await code();
    assert.equal(location.origin + location.pathname, redirectUri);
    assert.equal(location.searchParams.get('iss'), base);
    assert.equal(location.searchParams.get('state'), 's1');
    const res = await exchange(c, verifier);
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    // One hour, less the whole seconds between issuing and answering (the library counts down from expiresAt).
    const expiresIn = Number(res.body.expires_in);
    assert.ok(expiresIn <= 3600 && expiresIn > 3500, String(expiresIn));
    assert.equal(res.body.scope, 'mcp');
    assert.match(String(res.body.access_token), /^mcp_at_[A-Za-z0-9_-]{43}$/);
    const bearer = `Bearer ${String(res.body.access_token)}`;
    const health = await rpc(base, bearer, 'tools/call', { name: 'health', arguments: {} });
    assert.equal(health.status, 200);
    const account = ((health.body.result as Record<string, unknown>).structuredContent as Record<string, unknown>);
    assert.equal(account.valid, true);
    assert.equal(account.plan, 'paid');
    assert.equal(account.keyPrefix, key.slice(0, 16));
    // Stored hashed: neither the token nor the code is in the store as such.
    const db = (t.app.store as KyselyStore).db;
    const rows = await db.selectFrom('oauth_tokens').select('token_hash').execute();
    assert.ok(rows.some((r) => r.token_hash === secretHash(String(res.body.access_token))));
    assert.ok(!t.logs.some((l) => l.includes(String(res.body.access_token)) || l.includes(c)), 'neither the code nor the token is logged');
  });

  it('refuses a wrong PKCE verifier, and the code is spent by the attempt', async () => {
    const { code: c, verifier } = await code();
    const wrong = await exchange(c, pkcePair().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const after = await exchange(c, verifier);
    assert.equal(after.body.error, 'invalid_grant');
  });

  it('refuses a reused code', async () => {
    const { code: c, verifier } = await code();
    assert.equal((await exchange(c, verifier)).status, 200);
    const again = await exchange(c, verifier);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
  });

  it('refuses an expired code', async () => {
    const { code: c, verifier } = await code();
    const db = (t.app.store as KyselyStore).db;
    await db.updateTable('oauth_codes').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('code_hash', '=', secretHash(c)).execute();
    const res = await exchange(c, verifier);
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_grant');
    assert.match(String(res.body.error_description), /expired/);
  });

  it('refuses another resource (RFC 8707 invalid_target) at the authorization and the token endpoint', async () => {
    const { challenge } = pkcePair();
    // Shown on the page, not sent to the redirect URI: no redirect before a person has acted.
    const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'z', resource: 'https://elsewhere.example/mcp' })}`, { redirect: 'manual' });
    assert.equal(page.status, 400);
    assert.equal(page.headers.get('location'), null);
    assert.match(await page.text(), /<code id="reason">invalid_target<\/code>/);
    const { code: c, verifier } = await code();
    const res = await exchange(c, verifier, { resource: 'https://elsewhere.example/mcp' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_target');
  });

  it('requires PKCE S256, and shows an error page (no redirect) for an unregistered redirect URI', async () => {
    const plain = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: 'abc', code_challenge_method: 'plain' })}`, { redirect: 'manual' });
    assert.equal(plain.status, 400);
    assert.equal(plain.headers.get('location'), null);
    assert.match(await plain.text(), /<code id="reason">invalid_request<\/code>/);
    const foreign = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'https://attacker.example/cb', code_challenge: 'abc', code_challenge_method: 'S256' })}`, { redirect: 'manual' });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.headers.get('location'), null);
    assert.match(await foreign.text(), /redirect URI is not one the client registered/);
  });

  it('rotates the refresh token: the new one works, the old one is refused', async () => {
    const { code: c, verifier } = await code();
    const first = (await exchange(c, verifier)).body;
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: clientId, resource });
    assert.equal(refreshed.status, 200);
    assert.notEqual(refreshed.body.refresh_token, first.refresh_token);
    assert.equal((await rpc(base, `Bearer ${String(refreshed.body.access_token)}`, 'tools/list')).status, 200);
    const old = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: clientId });
    assert.equal(old.status, 400);
    assert.equal(old.body.error, 'invalid_grant');
  });

  it('shares the key\'s daily quota: calls by token and by key count on one counter', async () => {
    // FREE_DAILY_QUOTA is 3: two calls by token and one by key use it up; the fourth is refused.
    const free = await t.newKey('free');
    const { code: c, verifier } = await code(free);
    const token = String((await exchange(c, verifier)).body.access_token);
    const call = (auth: string) => rpc(base, auth, 'tools/call', { name: 'search_stocks', arguments: { q: 'a', limit: 1 } });
    assert.equal((await call(`Bearer ${token}`)).status, 200);
    assert.equal((await call(`Bearer ${free}`)).status, 200);
    assert.equal((await call(`Bearer ${token}`)).status, 200);
    const refused = await call(`Bearer ${token}`);
    assert.equal(refused.status, 429);
  });

  it('refuses a token once its key is revoked, and its refresh token too', async () => {
    const doomed = await t.newKey('paid');
    const { code: c, verifier } = await code(doomed);
    const tokens = (await exchange(c, verifier)).body;
    const bearer = `Bearer ${String(tokens.access_token)}`;
    assert.equal((await rpc(base, bearer, 'tools/list')).status, 200);
    assert.equal(await t.app.store.access.revokeKey(doomed.slice(0, 16), new Date().toISOString()), true);
    const refused = await rpc(base, bearer, 'tools/list');
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const refresh = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    assert.equal(refresh.body.error, 'invalid_grant');
  });

  it('answers 403 insufficient_scope for a token issued for another resource', async () => {
    const other = await t.newKey('paid');
    const keyId = (await t.app.store.access.keyByHash((await t.app.store.access.listKeys('2026-11-20')).find((k) => k.prefix === other.slice(0, 16))!.hash))!.id;
    const token = 'mcp_at_for-another-resource';
    await t.app.store.oauth.insertToken({ tokenHash: secretHash(token), kind: 'access', clientId, keyId, resource: 'https://old.example/api/mcp', scope: 'mcp', expiresAt: '2999-01-01T00:00:00.000Z', createdAt: '2026-11-20T00:00:00.000Z', grantId: null, siblingHash: null });
    const res = await rpc(base, `Bearer ${token}`, 'tools/list');
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  });

  it('serves the sign-in page without script under a policy that posts only here and to the client', async () => {
    const { challenge } = pkcePair();
    const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', resource })}`);
    const policy = page.headers.get('content-security-policy') ?? '';
    assert.match(policy, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self' http:\/\/127\.0\.0\.1:9; frame-ancestors 'none'; base-uri 'none'$/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.match(page.headers.get('set-cookie') ?? '', /^oauth_csrf=[A-Za-z0-9_-]{32}; Path=\/oauth\/authorize; HttpOnly; SameSite=Strict$/);
    const html = await page.text();
    assert.doesNotMatch(html, /<script|src=|href=/);
    assert.match(html, /<strong>Test Assistant<\/strong>/);
    assert.match(html, /<code>127\.0\.0\.1:9<\/code>/);
  });

  it('sends access_denied back when the person denies', async () => {
    const { challenge } = pkcePair();
    const params = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'd1', resource };
    const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams(params)}`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /name="csrf" value="([^"]*)"/.exec(await page.text())![1]!;
    const post = (body: Record<string, string>) => fetch(`${base}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: new URLSearchParams(body) });
    assert.equal((await post({ ...params, csrf, api_key: key, step: 'review' })).status, 200);
    const res = await post({ csrf, step: 'deny' });
    assert.equal(res.status, 303);
    const back = new URL(res.headers.get('location')!);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'd1');
    assert.equal(back.searchParams.get('code'), null);
  });

  it('refuses the form without its CSRF cookie', async () => {
    const { challenge } = pkcePair();
    const res = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', csrf: 'guess', api_key: key, step: 'allow' }),
      redirect: 'manual',
    });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('location'), null);
  });

  it('takes a client ID metadata document as client_id, fetched once from its URL and checked to name itself', async () => {
    const docs = await loopbackServer((origin) => ({ client_id: `${origin}/client.json`, client_name: 'Document Client', redirect_uris: [redirectUri] }));
    try {
      const docId = `${docs.url}/client.json`;
      const { verifier, challenge } = pkcePair();
      const { location, review } = await formSignIn(base, { response_type: 'code', client_id: docId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', resource }, key);
      assert.match(review, /<strong>Document Client<\/strong>/);
      const res = await tokenRequest(base, { grant_type: 'authorization_code', code: location.searchParams.get('code')!, code_verifier: verifier, client_id: docId, redirect_uri: redirectUri });
      assert.equal(res.status, 200);
      // Fetched once: the page, the two posts and the token request read the stored copy (1 h).
      assert.deepEqual(docs.seen.map((u) => u.pathname), ['/client.json']);
      // A document that names another client_id is refused on the page, without a redirect.
      const liar = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: `${docs.url}/other.json`, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256' })}`, { redirect: 'manual' });
      assert.equal(liar.status, 400);
      assert.match(await liar.text(), /names another client_id/);
    } finally {
      await docs.close();
    }
  });
});

describe('OAuth: clients that are refused', () => {
  let t: TestServer;
  before(async () => {
    t = await startOAuthServer();
  });
  after(() => t.close());

  it('registration refuses script, data, plain-http non-loopback and fragment redirect URIs, and a secret-based client', async () => {
    const cases: [unknown, string][] = [
      [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['data:text/html,x'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://example.com/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    ];
    for (const [body, error] of cases) {
      const res = await fetch(`${t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(((await res.json()) as { error: string }).error, error, JSON.stringify(body));
    }
    // Accepted: https, http on loopback, a private-use scheme.
    const ok = await fetch(`${t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['https://example.com/cb', 'http://localhost:3000/cb', 'com.example.app:/cb'] }) });
    assert.equal(ok.status, 201);
  });

  it('never fetches a client ID metadata document from an internal address over https', async () => {
    for (const id of ['https://127.0.0.1/client.json', 'https://10.1.2.3/client.json', 'https://[::1]/client.json', 'https://169.254.169.254/latest/meta-data']) {
      const res = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: id, code_challenge: 'x', code_challenge_method: 'S256' })}`, { redirect: 'manual' });
      assert.equal(res.status, 400, id);
      assert.match(await res.text(), /internal address/, id);
    }
  });
});

describe('OAuth: open registration is bounded', () => {
  let t: TestServer;
  before(async () => {
    t = await startOAuthServer({ TRUST_PROXY: '127.0.0.1' });
  });
  after(() => t.close());

  const registerFrom = (address: string) =>
    fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ client_name: 'Loop', redirect_uris: ['https://example.com/cb'] }),
    });

  it('takes 20 registrations an hour from one address, then 429 with Retry-After; another address goes on', async () => {
    // REGISTRATION_LIMITS.perAddressPerHour = 20: attempts 1..20 are stored, the 21st is refused
    // for the rest of the hour that began at the first (Retry-After 3,600 s less the seconds
    // the 21 requests took, rounded up: 3,599 or 3,600).
    for (let i = 1; i <= 20; i++) assert.equal((await registerFrom('203.0.113.7')).status, 201, `registration ${i}`);
    const refused = await registerFrom('203.0.113.7');
    assert.equal(refused.status, 429);
    assert.ok(['3599', '3600'].includes(refused.headers.get('retry-after') ?? ''), refused.headers.get('retry-after') ?? 'none');
    assert.equal(((await refused.json()) as { error: string }).error, 'temporarily_unavailable');
    assert.equal((await registerFrom('203.0.113.8')).status, 201);
  });
});

describe('OAuth off: a key-only deployment', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('answers the protected resource metadata with no authorization server, 404 for the authorization server metadata, and keys work', async () => {
    const prm = await get(`${t.url}/.well-known/oauth-protected-resource/api/mcp`, null);
    assert.equal(prm.status, 200);
    assert.deepEqual((prm.body as Record<string, unknown>).authorization_servers, []);
    assert.deepEqual((prm.body as Record<string, unknown>).bearer_methods_supported, ['header']);
    assert.equal((await get(`${t.url}/.well-known/oauth-authorization-server`, null)).status, 404);
    assert.equal((await fetch(`${t.url}/oauth/token`, { method: 'POST' })).status, 404);
    const key = await t.newKey('paid');
    assert.equal((await rpc(t.url, `Bearer ${key}`, 'tools/list')).status, 200);
    const none = await rpc(t.url, null, 'tools/list');
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"');
  });
});
