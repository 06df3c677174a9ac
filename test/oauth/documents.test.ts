// Client ID metadata documents fetched by /oauth/authorize, against a loopback document server
// that misbehaves: a huge body (the read stops at 16 KB), a huge declared length, a body that
// trickles (the 5 s deadline), a redirect (not followed); one fetch for concurrent requests of
// one URL, the document's max-age kept, the per-address fetch budget, and the internal address
// forms refused before any connection. Every failure is a 400 page (429 for the budget) with a
// stable reason, never a 500.
// The service fetches http documents from loopback only with OAUTH_LOOPBACK_CLIENT_DOCUMENTS=on
// (the tests' seam); https documents go to public unicast addresses only.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KyselyStore } from '../../src/store/store.js';
import type { TestServer } from '../support/server.js';
import { pkcePair, startOAuthServer } from './helpers.js';

type Handler = (req: IncomingMessage, res: ServerResponse, origin: string) => void;

interface DocumentServer {
  origin: string;
  /** Paths asked, in order. */
  seen: string[];
  /** Body bytes written per path before the connection ended. */
  written: Map<string, number>;
  close(): Promise<void>;
}

async function documentServer(routes: Record<string, Handler>): Promise<DocumentServer> {
  const seen: string[] = [];
  const written = new Map<string, number>();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push(path);
    const route = routes[path] ?? routes['*'];
    if (route === undefined) res.writeHead(404).end();
    else route(req, res, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    written,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A valid document naming its own URL. */
const validDocument = (origin: string, path: string) => JSON.stringify({ client_id: `${origin}${path}`, client_name: `Doc ${path}`, redirect_uris: ['http://127.0.0.1:9/callback'] });

describe('OAuth: client ID metadata documents under caps', () => {
  let t: TestServer;
  let docs: DocumentServer;
  const timers: NodeJS.Timeout[] = [];

  before(async () => {
    t = await startOAuthServer({ TRUST_PROXY: '127.0.0.1' });
    docs = await documentServer({
      // 100 MB of JSON-looking bytes, chunked (no length), written as fast as the reader takes them.
      '/huge.json': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(65_536, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 100 * 1_048_576) {
            sent += chunk.length;
            docs.written.set('/huge.json', sent);
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => docs.written.set('/huge.json', sent));
        pump();
      },
      // Declares 600 MB, then sends nothing.
      '/declared.json': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(600 * 1_048_576) });
        res.flushHeaders();
      },
      // One byte every 200 ms, forever: each read is quick, the whole never ends.
      '/trickle.json': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 200);
        timers.push(timer);
        res.on('close', () => clearInterval(timer));
      },
      '/redirect.json': (_req, res, origin) => void res.writeHead(302, { location: `${origin}/target.json` }).end(),
      '/target.json': (_req, res, origin) => void res.writeHead(200, { 'content-type': 'application/json' }).end(validDocument(origin, '/target.json')),
      // Answers after 300 ms: concurrent requests for it overlap.
      '/slow.json': (_req, res, origin) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(validDocument(origin, '/slow.json')), 300),
      '/cached.json': (_req, res, origin) => void res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=120' }).end(validDocument(origin, '/cached.json')),
      '*': (req, res, origin) => void res.writeHead(200, { 'content-type': 'application/json' }).end(validDocument(origin, new URL(req.url ?? '/', 'http://x').pathname)),
    });
  });
  after(async () => {
    for (const timer of timers) clearInterval(timer);
    await docs.close();
    await t.close();
  });

  /** GET /oauth/authorize with this client_id, as from `address`. */
  const authorize = (clientId: string, address: string) =>
    fetch(`${t.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': address },
    });
  const reasonOf = (html: string) => /<code id="reason">([^<]*)<\/code>/.exec(html)?.[1];

  it('stops reading a huge document at the cap: 400 document_too_large, the server cut off long before its 100 MB', async () => {
    const res = await authorize(`${docs.origin}/huge.json`, '198.51.100.1');
    const html = await res.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The reader closed the connection after 16 KB; what the server wrote is what loopback
    // socket buffers took before that (a few MB at most), not the 100 MB.
    const written = docs.written.get('/huge.json') ?? 0;
    assert.ok(written < 16 * 1_048_576, `${written} bytes written`);
    assert.equal(res.status, 400);
    assert.equal(reasonOf(html), 'document_too_large');
  });

  it('refuses a declared length over the cap at once', async () => {
    const started = Date.now();
    const res = await authorize(`${docs.origin}/declared.json`, '198.51.100.1');
    assert.equal(res.status, 400);
    assert.equal(reasonOf(await res.text()), 'document_too_large');
    assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
  });

  it('gives a trickling document 5 s in all: 400 document_timeout, not a 500', async () => {
    const started = Date.now();
    const res = await authorize(`${docs.origin}/trickle.json`, '198.51.100.1');
    const elapsed = Date.now() - started;
    assert.equal(res.status, 400);
    assert.equal(reasonOf(await res.text()), 'document_timeout');
    assert.ok(elapsed >= 4_900 && elapsed < 7_000, `${elapsed} ms`);
  });

  it('does not follow a redirect: 400 document_redirect, the target never asked', async () => {
    const res = await authorize(`${docs.origin}/redirect.json`, '198.51.100.1');
    assert.equal(res.status, 400);
    assert.equal(reasonOf(await res.text()), 'document_redirect');
    assert.ok(!docs.seen.includes('/target.json'));
  });

  it('fetches a document once for five requests at once', async () => {
    const pages = await Promise.all(Array.from({ length: 5 }, () => authorize(`${docs.origin}/slow.json`, '198.51.100.2')));
    assert.deepEqual(pages.map((p) => p.status), [200, 200, 200, 200, 200]);
    assert.equal(docs.seen.filter((p) => p === '/slow.json').length, 1);
  });

  it('keeps a document for its own max-age (120 s)', async () => {
    const id = `${docs.origin}/cached.json`;
    assert.equal((await authorize(id, '198.51.100.2')).status, 200);
    assert.equal((await authorize(id, '198.51.100.2')).status, 200);
    assert.equal(docs.seen.filter((p) => p === '/cached.json').length, 1);
    const row = await (t.app.store as KyselyStore).db.selectFrom('oauth_clients').select(['fetched_at', 'expires_at']).where('client_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(Date.parse(row.expires_at!) - Date.parse(row.fetched_at), 120_000);
  });

  it('fetches at most 20 new documents an hour for one address (429 with Retry-After), another address goes on', async () => {
    // DOCUMENT_FETCH_LIMITS.perAddressPerHour = 20: fetches 1..20 make client rows; the 21st
    // distinct URL is refused for the rest of the hour that began at the first (3,600 s less the
    // seconds the requests took, rounded up: 3,599 or 3,600); a stored document is still served.
    for (let i = 1; i <= 20; i++) assert.equal((await authorize(`${docs.origin}/budget-${i}.json`, '203.0.113.9')).status, 200, `document ${i}`);
    const refused = await authorize(`${docs.origin}/budget-21.json`, '203.0.113.9');
    assert.equal(refused.status, 429);
    assert.ok(['3599', '3600'].includes(refused.headers.get('retry-after') ?? ''), refused.headers.get('retry-after') ?? 'none');
    assert.equal(reasonOf(await refused.text()), 'document_fetch_budget');
    assert.ok(!docs.seen.includes('/budget-21.json'));
    assert.equal((await authorize(`${docs.origin}/budget-1.json`, '203.0.113.9')).status, 200);
    assert.equal((await authorize(`${docs.origin}/budget-21.json`, '203.0.113.10')).status, 200);
    const rows = await (t.app.store as KyselyStore).db.selectFrom('oauth_clients').select('client_id').where('client_id', 'like', `${docs.origin}/budget-%`).execute();
    assert.equal(rows.length, 21);
  });

  it('refuses every internal address form over https before connecting: 400 document_internal_address', async () => {
    for (const host of ['[::7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '[2001:0:4136:e378:8000:63bf:5601:5601]', '198.18.0.1', '224.0.0.1', '240.0.0.1', '255.255.255.255', '2130706433', '[fd00::1]']) {
      const res = await authorize(`https://${host}/client.json`, '198.51.100.3');
      assert.equal(res.status, 400, host);
      assert.equal(reasonOf(await res.text()), 'document_internal_address', host);
    }
  });
});
