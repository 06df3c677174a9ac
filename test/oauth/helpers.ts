// Shared by the OAuth tests: a server with OAuth on at a known public origin, a loopback
// redirect target, PKCE pairs, and the sign-in form driven over plain HTTP (the browser test
// drives the same form in Chromium).

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshSchema, TEST_REDIS_URL } from '../support/pg.js';
import { BACKEND, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

/** A port free at this moment (the public origin must be known before the server starts). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The service with OAuth on; its PUBLIC_URL is its own loopback origin unless `publicUrl` is given. */
/**
 * The environment two instances share a store through, on this run's backend: a fresh PostgreSQL
 * schema (and Redis with a prefix of its own, `prefix` + random) or a temporary DATA_DIR; each
 * one's removal is pushed onto `cleanups`.
 */
export async function sharedStoreEnv(prefix: string, cleanups: (() => Promise<void> | void)[]): Promise<Record<string, string>> {
  const shared: Record<string, string> = {};
  if (BACKEND === 'postgres') {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    shared.DATABASE_URL = schema.url;
    if (TEST_REDIS_URL) Object.assign(shared, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `${prefix}${randomBytes(5).toString('hex')}` });
  } else {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    shared.DATA_DIR = tmp.dir;
  }
  return shared;
}

export async function startOAuthServer(env: Record<string, string> = {}, publicUrl?: string): Promise<TestServer> {
  const port = publicUrl === undefined ? await freePort() : 0;
  return startTestServer({ OAUTH: 'on', PUBLIC_URL: publicUrl ?? `http://127.0.0.1:${port}`, PORT: String(port), OAUTH_LOOPBACK_CLIENT_DOCUMENTS: 'on', ...env });
}

/** A loopback HTTP server answering every GET with `body(its origin)` as JSON, or a short page; records the URLs asked. */
export async function loopbackServer(body?: (origin: string) => unknown): Promise<{ url: string; seen: URL[]; close: () => Promise<void> }> {
  const seen: URL[] = [];
  let server: Server | undefined;
  await new Promise<void>((resolve) => {
    server = createServer((req, res) => {
      seen.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
      if (body === undefined) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>signed in</p>');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`)));
    }).listen(0, '127.0.0.1', resolve);
  });
  const { port } = server!.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((resolve) => server!.close(() => resolve())) };
}

/** RFC 7636 S256: challenge = BASE64URL(SHA256(verifier)). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(base: string, redirectUri: string, name = 'Test Assistant'): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }) });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface SignIn {
  /** The Location the allow step sent the browser to (the client's redirect URI with code, iss, state). */
  location: URL;
  /** The review page's HTML (plan, quota). */
  review: string;
}

const hidden = (html: string, name: string): string | undefined => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** Drives the sign-in page over HTTP: GET the page, post the key (review), post allow. */
export async function formSignIn(base: string, params: Record<string, string>, key: string): Promise<SignIn> {
  const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  if (page.status !== 200) throw Object.assign(new Error(`authorize: ${page.status}`), { response: page });
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = hidden(await page.text(), 'csrf')!;
  const post = (body: Record<string, string>) =>
    fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams(body),
    });
  // Step one posts the request and the key; step two, as the review page's form does, only the CSRF token.
  const review = await post({ ...params, csrf, api_key: key, step: 'review' });
  const reviewHtml = await review.text();
  if (review.status !== 200) throw new Error(`review: ${review.status} ${reviewHtml}`);
  const allowed = await post({ csrf, step: 'allow' });
  if (allowed.status !== 303) throw new Error(`allow: ${allowed.status} ${await allowed.text()}`);
  return { location: new URL(allowed.headers.get('location')!), review: reviewHtml };
}

export async function tokenRequest(base: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** One JSON-RPC call at the MCP endpoint with this Authorization header (none: null). */
export async function rpc(base: string, authorization: string | null, method: string, params: unknown = {}, path = '/api/mcp'): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
