// Headers of every answer (src/http/server.ts onSend) and the docs page (src/http/docs.ts): no
// sniffing and no framing everywhere, errors never stored, successes keeping their own
// Cache-Control; /docs serves only the two swagger-ui files it loads, under its own policy, and
// renders under that policy in a real browser with nothing refused.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/http/docs.js';
import { skipBrowser, openPage } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

describe('security headers', () => {
  let t: TestServer;
  let key: string;
  let base: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    base = `${t.url}/api/public/v2`;
  });
  after(() => t.close());

  const mcp = (body: string, auth: string | null, extra: Record<string, string> = {}) =>
    fetch(`${t.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(auth === null ? {} : { authorization: `Bearer ${auth}` }), ...extra },
      body,
    });

  it('every API, problem and operator answer: nosniff and no framing; every error no-store; a success keeps its own Cache-Control (max-age=0: the test server schedules no refresh)', async () => {
    const call = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_rankings","arguments":{"limit":1}}}';
    const answers: [string, Response, number, string | null][] = [
      // [what, response, status, Cache-Control expected (null: none set)]
      ['rankings', await fetch(`${base}/rankings?limit=1`, { headers: { authorization: `Bearer ${key}` } }), 200, 'private, max-age=0'],
      ['health', await fetch(`${base}/health`, { headers: { authorization: `Bearer ${key}` } }), 200, 'no-store'],
      ['openapi.json', await fetch(`${base}/openapi.json`), 200, null],
      ['healthz', await fetch(`${t.url}/healthz`), 200, null],
      ['readyz', await fetch(`${t.url}/readyz`), 200, 'no-store'],
      ['bad parameter', await fetch(`${base}/rankings?limit=0`, { headers: { authorization: `Bearer ${key}` } }), 400, 'no-store'],
      ['no key', await fetch(`${base}/rankings`), 401, 'no-store'],
      ['unknown path', await fetch(`${base}/nothing`, { headers: { authorization: `Bearer ${key}` } }), 404, 'no-store'],
      ['bad percent-encoding', await fetch(`${base}/stocks/%zz/score`, { headers: { authorization: `Bearer ${key}` } }), 400, 'no-store'],
      ['MCP call', await mcp(call, key), 200, null],
      ['MCP without a key', await mcp(call, null), 401, 'no-store'],
      ['MCP body too large', await mcp(`{"x":"${'a'.repeat(300_000)}"}`, key), 413, 'no-store'],
    ];
    for (const [what, res, status, cacheControl] of answers) {
      assert.equal(res.status, status, what);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: ${JSON.stringify([...res.headers])}`);
      assert.equal(res.headers.get('content-security-policy'), API_CSP, what);
      assert.equal(res.headers.get('cache-control'), cacheControl, what);
      await res.arrayBuffer();
    }
  });

  it('a request the HTTP parser refuses (a raw UTF-8 path, a control character in a header): 400 invalid_parameter as problem+json, with the headers of every error', async () => {
    const { port } = new URL(t.url);
    const raw = (request: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
    for (const [what, request] of [
      ['raw UTF-8 in the path', Buffer.concat([Buffer.from('GET /api/public/v2/search?q='), Buffer.from('삼성전자', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])],
      ['a control character in a header', Buffer.from('GET /api/public/v2/health HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n')],
    ] as const) {
      const answer = await raw(request);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 400 Bad Request\r\n/, what);
      const headers = new Map(head.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 2)]));
      assert.equal(headers.get('content-type'), 'application/problem+json', what);
      assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
      assert.equal(headers.get('cache-control'), 'no-store', what);
      assert.equal(headers.get('content-security-policy'), API_CSP, what);
      assert.equal(Number(headers.get('content-length')), Buffer.byteLength(body), what);
      const problem = JSON.parse(body) as { code: string; status: number };
      assert.equal(problem.code, 'invalid_parameter', what);
      assert.equal(problem.status, 400, what);
    }
    // The service still answers.
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  });

  it('/docs: its own policy; only swagger-ui.css and swagger-ui-bundle.js of the package; its stock pages are not reachable', async () => {
    const page = await fetch(`${t.url}/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), DOCS_CONTENT_SECURITY_POLICY);
    assert.match(DOCS_CONTENT_SECURITY_POLICY, /^default-src 'none'; script-src 'self' 'sha256-[A-Za-z0-9+/]{43}='; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'$/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    await page.text();
    for (const [name, type] of [['swagger-ui.css', 'text/css; charset=utf-8'], ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8']]) {
      const res = await fetch(`${t.url}/docs/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), type, name);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=604800', name);
      assert.ok((await res.arrayBuffer()).byteLength > 100_000, name);
    }
    for (const name of ['index.html', '', 'swagger-initializer.js', 'oauth2-redirect.html', 'oauth2-redirect.js', 'index.css', 'swagger-ui-bundle.js.map', 'swagger-ui.js', 'package.json', 'favicon-32x32.png', '../package.json', '%2e%2e/package.json']) {
      const res = await get(`${t.url}/docs/assets/${name}`, null);
      assert.equal(res.status, 404, name);
      assert.equal((res.body as { code: string }).code, 'not_found', name);
    }
  });

  it('/docs renders in Chromium under its policy: every operation listed, nothing refused, no page error', { skip: skipBrowser }, async () => {
    const { browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 1280, height: 900 });
    try {
      const refused: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) refused.push(msg.text());
      });
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`${t.url}/docs`);
      // One block per operation of the document.
      const doc = (await get(`${t.url}/api/public/v2/openapi.json`, null)).body as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
      await page.waitForSelector('.opblock');
      const blocks = await page.locator('.opblock').count();
      assert.equal(blocks, operations);
      assert.deepEqual(refused, []);
      assert.deepEqual(pageErrors, []);
      assert.ok(requests.every((u) => u.startsWith(t.url) || u.startsWith('data:')), requests.join(' '));
    } finally {
      await browser.close();
    }
  });
});
