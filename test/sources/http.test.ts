import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpClient, parseRetryAfter, RateLimiter, redact, setPacingTimer, SourceHttpError, type PacingTimer } from '../../src/sources/http.js';
import { loopback, memoryLog, type Loopback } from './helpers.js';

const KEY = 'Ab+c/d=SECRETKEY123';

describe('HttpClient against a loopback server', () => {
  let server: Loopback;
  let calls = new Map<string, number>();
  before(async () => {
    server = await loopback((req) => {
      const n = (calls.get(req.url.pathname) ?? 0) + 1;
      calls.set(req.url.pathname, n);
      switch (req.url.pathname) {
        case '/flaky':
          return n === 1 ? { status: 500, body: 'Internal Server Error' } : { body: '{"ok":true}' };
        case '/limited':
          return n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { body: '{"ok":1}' };
        case '/hang':
          return { hang: true };
        case '/html':
          return { body: '<html><body>Service Unavailable</body></html>' };
        case '/notfound':
          return { status: 404, body: `no such thing for ${req.url.searchParams.get('serviceKey') ?? ''}` };
        case '/exact':
          return { body: 'a'.repeat(1000) };
        case '/over':
          return { body: 'a'.repeat(1001) };
        case '/always500':
          return { status: 503, body: 'down' };
        default:
          return { status: 404 };
      }
    });
  });
  after(() => server.close());

  const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient =>
    new HttpClient({ source: 'test', fetch, retries: 2, backoffMs: 10, timeoutMs: 2_000, secrets: [KEY], ...over });

  it('reads a body of exactly maxBodyBytes; one byte more is refused as too large, at once, without a retry', async () => {
    calls = new Map();
    assert.equal((await client({ maxBodyBytes: 1000 }).getBytes(`${server.base}/exact`)).byteLength, 1000);
    await assert.rejects(client({ maxBodyBytes: 1000 }).getBytes(`${server.base}/over?serviceKey=${encodeURIComponent(KEY)}`), (err: unknown) => {
      assert.ok(err instanceof SourceHttpError);
      assert.equal(err.kind, 'too large');
      assert.equal(err.message, `test: response body too large from ${server.base}/over?serviceKey=***: more than 1000 bytes sent (limit 1000 bytes)`);
      return true;
    });
    assert.equal(calls.get('/over'), 1, 'not retried');
  });

  it('retries a 500 and returns the later success', async () => {
    calls = new Map();
    const log = memoryLog();
    assert.deepEqual(await client({ log }).getJson(`${server.base}/flaky`), { ok: true });
    assert.equal(calls.get('/flaky'), 2);
    assert.match(log.lines[0] ?? '', /retrying/);
  });

  it('waits for Retry-After on a 429', async () => {
    calls = new Map();
    const t0 = Date.now();
    assert.deepEqual(await client().getJson(`${server.base}/limited`), { ok: 1 });
    const waited = Date.now() - t0;
    assert.ok(waited >= 950, `waited ${waited} ms, Retry-After said 1 s`);
    assert.equal(calls.get('/limited'), 2);
  });

  it('aborts a request the server never answers after the configured timeout', async () => {
    const t0 = Date.now();
    await assert.rejects(client({ timeoutMs: 300, retries: 0 }).getText(`${server.base}/hang`), (err: unknown) => {
      assert.ok(err instanceof SourceHttpError);
      assert.equal(err.kind, 'timeout');
      assert.match(err.message, /timed out after 300 ms/);
      return true;
    });
    assert.ok(Date.now() - t0 < 1_500);
  });

  it('reports a malformed body as a parse error with an excerpt', async () => {
    await assert.rejects(client().getJson(`${server.base}/html`), (err: unknown) => {
      assert.ok(err instanceof SourceHttpError);
      assert.equal(err.kind, 'parse');
      assert.match(err.message, /body is not JSON: <html>/);
      return true;
    });
  });

  it('gives up after the configured retries with the last status', async () => {
    calls = new Map();
    await assert.rejects(client({ retries: 1 }).getText(`${server.base}/always500`), (err: unknown) => {
      assert.ok(err instanceof SourceHttpError);
      assert.equal(err.status, 503);
      return true;
    });
    assert.equal(calls.get('/always500'), 2);
  });

  it('never puts the key in an error message, url or log line, even when the server echoes it', async () => {
    const log = memoryLog();
    const url = `${server.base}/notfound?serviceKey=${encodeURIComponent(KEY)}&x=1`;
    await assert.rejects(client({ log }).getText(url), (err: unknown) => {
      assert.ok(err instanceof SourceHttpError);
      assert.equal(err.status, 404);
      for (const text of [err.message, err.url, err.stack ?? '']) {
        assert.ok(!text.includes(KEY) && !text.includes(encodeURIComponent(KEY)), text);
      }
      assert.match(err.message, /serviceKey=\*\*\*/);
      return true;
    });
    const hangUrl = `${server.base}/api/StatisticSearch/${encodeURIComponent(KEY)}/json`;
    const retryLog = memoryLog();
    await assert.rejects(client({ log: retryLog, retries: 1, backoffMs: 1 }).getText(`${server.base}/always500?crtfc_key=${KEY}`));
    await assert.rejects(client({ timeoutMs: 50, retries: 0 }).getText(`${server.base}/hang/${encodeURIComponent(KEY)}`), (err: unknown) => {
      assert.ok(err instanceof Error && !err.message.includes(encodeURIComponent(KEY)));
      return true;
    });
    for (const line of [...log.lines, ...retryLog.lines]) assert.ok(!line.includes(KEY) && !line.includes(encodeURIComponent(KEY)), line);
    assert.equal(redact(hangUrl, [KEY]), `${server.base}/api/StatisticSearch/***/json`);
  });
});

describe('http helpers', () => {
  it('parses Retry-After seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter('2'), 2000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 5000);
    assert.equal(parseRetryAfter(null), null);
    assert.equal(parseRetryAfter('soon'), null);
  });

  it('redacts credential query parameters it was not told about', () => {
    assert.equal(redact('https://x/y?apiKey=abc&date=1', []), 'https://x/y?apiKey=***&date=1');
    assert.equal(redact('https://x/y?a=1&crtfc_key=0123456789', []), 'https://x/y?a=1&crtfc_key=***');
  });

  it('spaces requests by the limiter interval', async () => {
    const limiter = new RateLimiter(50);
    const t0 = Date.now();
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    assert.ok(Date.now() - t0 >= 95);
  });

  it("shares one upstream's limiter between every caller in the process, at the slower rate asked", async () => {
    // A virtual clock: sleeping advances it, so the spacing is read exactly, without waiting.
    let now = 1_000_000;
    const starts: number[] = [];
    const timer: PacingTimer = { now: () => now, sleep: async (ms) => void (now += ms) };
    const restore = setPacingTimer(timer);
    try {
      const adapter = RateLimiter.shared('test.upstream', 10);
      const lookups = RateLimiter.shared('test.upstream', 20);
      assert.equal(adapter, lookups, 'one queue');
      assert.equal(adapter.minIntervalMs, 100, '10 a second is kept over 20');
      assert.notEqual(RateLimiter.shared('other.upstream', 10), adapter);
      // Two adapters' calls interleaved: 100 ms apart in one queue, so 10 in any second.
      for (let i = 0; i < 3; i++) {
        await adapter.acquire();
        starts.push(now);
        await lookups.acquire();
        starts.push(now);
      }
      assert.deepEqual(starts.map((t) => t - starts[0]!), [0, 100, 200, 300, 400, 500]);
    } finally {
      restore();
    }
  });
});
