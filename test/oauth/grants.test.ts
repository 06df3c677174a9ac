// The sign-in page and the grants it makes, over HTTP: no redirect to the client for a request
// error before a person acted (shown on the page instead); loopback redirect URIs with any port
// (RFC 8252 section 7.3); the API key never written back into the page (step two is a pending
// grant in the store, answered by another instance on the same store); a replayed code revokes
// every token issued from it (RFC 6749 section 4.1.2); a rotated refresh token ends the access
// token issued beside it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKEND, type TestServer } from '../support/server.js';
import { formSignIn, pkcePair, register, rpc, sharedStoreEnv, startOAuthServer, tokenRequest } from './helpers.js';

describe(`OAuth grants and the sign-in page (${BACKEND}, two instances on one store)`, () => {
  let a: TestServer;
  let b: TestServer;
  let base: string;
  let resource: string;
  let key: string;
  let clientId: string;
  const redirectUri = 'http://127.0.0.1:9/callback';
  const cleanups: (() => Promise<void> | void)[] = [];

  before(async () => {
    const shared = await sharedStoreEnv('g', cleanups);
    a = await startOAuthServer(shared);
    b = await startOAuthServer(shared, a.url);
    base = a.url;
    resource = `${base}/api/mcp`;
    key = await a.newKey('paid');
    clientId = await register(base, redirectUri);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    for (const c of cleanups.reverse()) await c();
  });

  const request = (extra: Record<string, string> = {}) => ({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 'st', resource, ...extra });
  const reasonOf = (html: string) => /<code id="reason">([^<]*)<\/code>/.exec(html)?.[1];

  it('never redirects a request error from GET /oauth/authorize: no PKCE, plain, another resource, another scope, another response type', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge: '' }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [extra, reason] of cases) {
      const res = await fetch(`${base}/oauth/authorize?${new URLSearchParams(request(extra))}`, { redirect: 'manual' });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.headers.get('location'), null, JSON.stringify(extra));
      assert.equal(reasonOf(await res.text()), reason, JSON.stringify(extra));
    }
  });

  it('takes a loopback redirect URI with any port, the rest exactly, through to the token', async () => {
    // Registered without a port (a native client cannot know the one it will get).
    const native = await register(base, 'http://127.0.0.1/callback', 'Native App');
    const { verifier, challenge } = pkcePair();
    const params = { response_type: 'code', client_id: native, redirect_uri: 'http://127.0.0.1:53124/callback', code_challenge: challenge, code_challenge_method: 'S256', state: 'n1', resource };
    const { location } = await formSignIn(base, params, key);
    assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:53124/callback');
    const res = await tokenRequest(base, { grant_type: 'authorization_code', code: location.searchParams.get('code')!, code_verifier: verifier, client_id: native, redirect_uri: 'http://127.0.0.1:53124/callback', resource });
    assert.equal(res.status, 200);
    // Another path on loopback is not the registered URI.
    const other = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ ...params, redirect_uri: 'http://127.0.0.1:53124/other' })}`, { redirect: 'manual' });
    assert.equal(other.status, 400);
    assert.equal(reasonOf(await other.text()), 'redirect_uri_mismatch');
  });

  it('never writes the key into a page; step two is answered from the pending grant, by another instance, once', async () => {
    const params = request({ state: 'k1' });
    const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams(params)}`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /name="csrf" value="([^"]*)"/.exec(await page.text())![1]!;
    const post = (server: TestServer, body: Record<string, string>) =>
      fetch(`${server.url}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: base }, body: new URLSearchParams(body) });
    const review = await post(a, { ...params, csrf, api_key: key, step: 'review' });
    assert.equal(review.status, 200);
    const html = await review.text();
    assert.ok(!html.includes(key), 'the key is not in the review page');
    assert.ok(!html.includes(key.slice(16)), 'nor its secret part');
    assert.match(html, /<dd id="plan">paid<\/dd>/);
    // The review form carries the CSRF token alone.
    assert.deepEqual([...html.matchAll(/<input type="hidden" name="([^"]+)"/g)].map((m) => m[1]), ['csrf']);
    const allowed = await post(b, { csrf, step: 'allow' });
    assert.equal(allowed.status, 303);
    const back = new URL(allowed.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, redirectUri);
    assert.equal(back.searchParams.get('state'), 'k1');
    assert.match(back.searchParams.get('code') ?? '', /^[0-9a-f]{64}$/);
    // The grant was taken: the same form again is refused on the page.
    const again = await post(a, { csrf, step: 'allow' });
    assert.equal(again.status, 400);
    assert.equal(reasonOf(await again.text()), 'no_pending_grant');
  });

  it('revokes every token issued from a code when the code is replayed', async () => {
    const { verifier, challenge } = pkcePair();
    const { location } = await formSignIn(base, request({ code_challenge: challenge }), key);
    const code = location.searchParams.get('code')!;
    const exchange = () => tokenRequest(base, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource });
    const first = await exchange();
    assert.equal(first.status, 200);
    // A refresh first: the tokens descended from the code go too.
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: clientId, resource });
    assert.equal(refreshed.status, 200);
    const bearer = `Bearer ${String(refreshed.body.access_token)}`;
    assert.equal((await rpc(base, bearer, 'tools/list')).status, 200);
    const replay = await exchange();
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal((await rpc(base, bearer, 'tools/list')).status, 401);
    assert.equal((await rpc(b.url, bearer, 'tools/list')).status, 401);
    const refresh = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(refreshed.body.refresh_token), client_id: clientId, resource });
    assert.equal(refresh.body.error, 'invalid_grant');
  });

  it('ends the access token issued beside a refresh token when that refresh token rotates', async () => {
    const { verifier, challenge } = pkcePair();
    const { location } = await formSignIn(base, request({ code_challenge: challenge }), key);
    const first = (await tokenRequest(base, { grant_type: 'authorization_code', code: location.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource })).body;
    const old = `Bearer ${String(first.access_token)}`;
    assert.equal((await rpc(base, old, 'tools/list')).status, 200);
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: clientId, resource });
    assert.equal(refreshed.status, 200);
    assert.equal((await rpc(base, old, 'tools/list')).status, 401);
    assert.equal((await rpc(base, `Bearer ${String(refreshed.body.access_token)}`, 'tools/list')).status, 200);
  });
});
