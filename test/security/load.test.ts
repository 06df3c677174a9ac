// Load on loopback: autocannon (in this process) against the service in a child process
// (so its memory is measured alone, after a forced GC), mixing REST rankings/score/prices and
// MCP tools/call: zero errors and zero non-2xx, memory back near its warm baseline. Then
// slow clients (slowloris: headers or a body dribbled byte by byte) do not starve a normal
// request, and the request timeout closes them.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import autocannon from 'autocannon';
import { generateKey } from '../../src/access/keys.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DURATION_S = Number(process.env.LOAD_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 64);
const FLOOD_CONNECTIONS = 16;

interface Ready {
  url: string;
  key: string;
  codes: { kr: string[]; us: string[] };
}
interface Mem {
  rss: number;
  heapUsed: number;
  gc: boolean;
}

class ServerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  constructor() {
    const script = join(import.meta.dirname, 'fixtures', 'serve.ts');
    this.child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.resume();
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }
  private async expect(prefix: string): Promise<string> {
    for (;;) {
      const next = await this.lines.next();
      if (next.done) throw new Error(`server process ended before ${prefix}`);
      if (next.value.startsWith(prefix)) return next.value.slice(prefix.length);
    }
  }
  async ready(): Promise<Ready> {
    return JSON.parse(await this.expect('READY ')) as Ready;
  }
  async mem(): Promise<Mem> {
    this.child.stdin.write('mem\n');
    return JSON.parse(await this.expect('MEM ')) as Mem;
  }
  async calls(): Promise<number> {
    this.child.stdin.write('calls\n');
    return (JSON.parse(await this.expect('CALLS ')) as { calls: number }).calls;
  }
  async exit(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.write('exit\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function requestsFor(ready: Ready): autocannon.Request[] {
  const auth = { authorization: `Bearer ${ready.key}` };
  const all = [...ready.codes.kr, ...ready.codes.us];
  const out: autocannon.Request[] = [];
  all.forEach((code, i) => {
    out.push({ method: 'GET', path: `/api/public/v2/stocks/${code}/score`, headers: auth });
    out.push({ method: 'GET', path: `/api/public/v2/stocks/${code}/prices?interval=${['day', 'week', 'month'][i % 3]}&limit=${100 + i}`, headers: auth });
    out.push({ method: 'GET', path: `/api/public/v2/rankings?market=${i % 2 ? 'KR' : 'KR,US'}&limit=${10 + (i % 5) * 10}`, headers: auth });
    out.push({
      method: 'POST',
      path: '/api/mcp',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: i % 2 ? 'get_stock_snapshot' : 'get_stock_score', arguments: { code } } }),
    });
    if (i % 4 === 0) {
      out.push({
        method: 'POST',
        path: '/api/mcp',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_rankings', arguments: { market: 'US', limit: 20 } } }),
      });
    }
  });
  return out;
}

const mb = (n: number) => Math.round((n / 1_048_576) * 10) / 10;

describe('load', () => {
  let server: ServerProcess;
  let ready: Ready;
  before(async () => {
    server = new ServerProcess();
    ready = await server.ready();
  });
  after(() => server.exit());

  it(`${CONNECTIONS} connections for ${DURATION_S} s over both doors beside an unknown-key flood: no errors, every answered call counted, memory back near baseline`, async () => {
    const requests = requestsFor(ready);
    // Warm up with the same mix: every request once (fills the response cache and the
    // dataset's lazily built per-stock data), then 1 s of load for the JIT; then the baseline.
    for (const r of requests) {
      const res = await fetch(`${ready.url}${r.path ?? '/'}`, { method: r.method ?? 'GET', headers: r.headers as Record<string, string>, ...(r.body === undefined ? {} : { body: r.body as string }) });
      assert.equal(res.status, 200, `${r.method ?? 'GET'} ${r.path ?? ''}`);
      await res.arrayBuffer();
    }
    await autocannon({ url: ready.url, connections: 16, duration: 1, requests });
    const baseline = await server.mem();
    assert.ok(baseline.gc, 'the server process runs with --expose-gc');

    // Beside the paying load, a flood of made-up keys on both doors (a new key each request):
    // refused 401, then 429 once the address has used up its failures.
    const floodRequests: autocannon.Request[] = [
      { method: 'GET', path: '/api/public/v2/rankings', setupRequest: (r: autocannon.Request) => ({ ...r, headers: { authorization: `Bearer ${generateKey().key}` } }) },
      { method: 'POST', path: '/api/mcp', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', setupRequest: (r: autocannon.Request) => ({ ...r, headers: { authorization: `Bearer ${generateKey().key}`, 'content-type': 'application/json' } }) },
    ];
    const callsBefore = await server.calls();
    const [result, flood] = await Promise.all([
      autocannon({ url: ready.url, connections: CONNECTIONS, duration: DURATION_S, requests, timeout: 10 }),
      autocannon({ url: ready.url, connections: FLOOD_CONNECTIONS, duration: DURATION_S, requests: floodRequests, timeout: 10 }),
    ]);
    const counted = (await server.calls()) - callsBefore;
    const afterLoad = await server.mem();
    const floodStatuses = Object.fromEntries(Object.entries(flood.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
    console.log(`# load: flood of unknown keys at ${FLOOD_CONNECTIONS} conns: ${flood.requests.total} requests, statuses ${JSON.stringify(floodStatuses)}, errors=${flood.errors}; paying calls answered ${result['2xx']}, counted ${counted}`);
    assert.deepEqual(Object.keys(floodStatuses).filter((code) => code !== '401' && code !== '429'), [], 'the flood is refused, never served and never a 5xx');
    assert.ok((floodStatuses['429'] ?? 0) > 0, 'the flood reached the per-address limit');
    assert.equal(flood.errors, 0);
    // Every answered call was counted once; the only difference allowed is calls the server
    // admitted while autocannon stopped (at most one in flight per connection).
    assert.ok(counted >= result['2xx'] && counted <= result['2xx'] + CONNECTIONS, `answered ${result['2xx']}, counted ${counted}`);
    console.log(
      `# load: ${CONNECTIONS} conns ${DURATION_S}s: ${result.requests.total} requests, ${Math.round(result.requests.average)} req/s, ` +
        `latency p50=${result.latency.p50}ms p99=${result.latency.p99}ms max=${result.latency.max}ms; ` +
        `errors=${result.errors} timeouts=${result.timeouts} non2xx=${result.non2xx}; ` +
        `heapUsed ${mb(baseline.heapUsed)} -> ${mb(afterLoad.heapUsed)} MB, rss ${mb(baseline.rss)} -> ${mb(afterLoad.rss)} MB`,
    );
    assert.equal(result.errors, 0);
    assert.equal(result.timeouts, 0);
    assert.equal(result.non2xx, 0);
    assert.ok(result.requests.total > 1_000, `only ${result.requests.total} requests`);
    // Back near baseline: a leak of even a few hundred bytes per request would show here.
    assert.ok(afterLoad.heapUsed < baseline.heapUsed * 1.25 + 16 * 1_048_576, `heap grew from ${mb(baseline.heapUsed)} to ${mb(afterLoad.heapUsed)} MB`);
    assert.ok(afterLoad.rss < baseline.rss + 160 * 1_048_576, `rss grew from ${mb(baseline.rss)} to ${mb(afterLoad.rss)} MB`);
    // And it still answers.
    const res = await fetch(`${ready.url}/api/public/v2/health`, { headers: { authorization: `Bearer ${ready.key}` } });
    assert.equal(res.status, 200);
  });
});

describe('slow clients', () => {
  const TIMEOUT_MS = 2_000;
  let t: TestServer;
  let key: string;
  before(async () => {
    t = await startTestServer({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
    key = await t.newKey('paid');
  });
  after(() => t.close());

  it('100 slowloris sockets do not starve a normal request, and the request timeout closes them', async () => {
    const { port } = new URL(t.url);
    const sockets: net.Socket[] = [];
    const closedAt: number[] = [];
    const timers: NodeJS.Timeout[] = [];
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => closedAt.push(performance.now() - started));
      socket.resume();
      // Half dribble their headers, half announce a body and dribble that.
      const head =
        i % 2 === 0
          ? `GET /api/public/v2/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Slow: `
          : `POST /api/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"`;
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        socket.write(sent < head.length ? head.slice(sent, sent + 40) : 'x');
        sent += 40;
      }, 100);
      timers.push(timer);
      sockets.push(socket);
    }
    try {
      // While they hang, normal requests on both doors answer promptly.
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 250));
        const t0 = performance.now();
        const rest = await fetch(`${t.url}/api/public/v2/rankings?limit=5`, { headers: { authorization: `Bearer ${key}` } });
        const mcp = await fetch(`${t.url}/api/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"health"}}',
        });
        latencies.push(performance.now() - t0);
        assert.equal(rest.status, 200);
        assert.equal(mcp.status, 200);
        await rest.arrayBuffer();
        await mcp.arrayBuffer();
      }
      assert.ok(Math.max(...latencies) < 1_000, `normal requests took ${latencies.map(Math.round).join(', ')} ms`);
      assert.ok(closedAt.length < 100, 'the slow sockets were still open while the normal requests ran');
      // The server cuts them off: timeout plus the 1 s check interval, with some slack.
      const deadline = performance.now() + TIMEOUT_MS + 4_000;
      while (closedAt.length < 100 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      console.log(`# slowloris: 100 sockets, normal requests ${latencies.map(Math.round).join('/')} ms, all closed by the server after ${Math.round(Math.max(...closedAt))} ms (timeout ${TIMEOUT_MS} ms)`);
      assert.equal(closedAt.length, 100, `${100 - closedAt.length} slow sockets still open`);
      assert.ok(Math.min(...closedAt) >= TIMEOUT_MS - 100, 'not closed before the timeout');
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const s of sockets) s.destroy();
    }
  });
});
