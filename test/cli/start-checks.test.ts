// What a newcomer meets when something is wrong at start, each as a spawned process the way
// the README starts it: the stdio bridge with no service, a wrong key or a wrong URL says so in
// one line and exits (rather than connecting and failing at the first call); `serve` on a port
// in use says so in one line (no stack trace).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LAUNCHER = resolve(ROOT, 'bin', 'mcp-stdio.mjs');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (stdin closed at once), with only the environment given. */
function run(args: string[], env: Record<string, string>, cwd = tmpdir()): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end();
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((done) => server.close(done));
  return port;
}

describe('the stdio bridge checks the service and the key at start', () => {
  let t: TestServer;
  let key: string;
  let other: Server;
  let otherUrl: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('free');
    // Some other web server (a wrong port or path in SERVICE_URL): HTML 404s.
    other = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    otherUrl = `http://127.0.0.1:${await listen(other)}`;
  });
  after(async () => {
    await new Promise((done) => other.close(done));
    await t.close();
  });

  it('no service at SERVICE_URL: connection refused, exit 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await run([LAUNCHER], { SERVICE_URL: url, SERVICE_API_KEY: key });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '', 'nothing on the protocol stream');
    assert.equal(r.stderr, `stock-data-mcp: cannot reach the service at ${url}: connection refused (nothing listens there: is the service running? \`npm start\`)\n`);
  });

  it('a wrong key: refused by the service, named by its prefix, exit 1', async () => {
    const wrong = 'sk_live_wrongkeywrongkeywrongkeywrongkey';
    const r = await run([LAUNCHER], { SERVICE_URL: t.url, SERVICE_API_KEY: wrong });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^stock-data-mcp: the service at ${t.url} refused the key sk_live_wrongkey\\.\\.\\. \\(.+\\): check SERVICE_API_KEY`));
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
  });

  it('a URL that is another server, or no URL at all: says which, exit 1', async () => {
    const r = await run([LAUNCHER], { SERVICE_URL: otherUrl, SERVICE_API_KEY: key });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `stock-data-mcp: ${otherUrl}/api/mcp answered HTTP 404 but is not the stock data service's MCP endpoint: check SERVICE_URL (the service's base address, e.g. http://127.0.0.1:8080)\n`);
    const bad = await run([LAUNCHER], { SERVICE_URL: '127.0.0.1:8080', SERVICE_API_KEY: key });
    assert.equal(bad.code, 1);
    // Without its scheme the address is no base URL to resolve /api/mcp against.
    assert.equal(bad.stderr, 'stock-data-mcp: SERVICE_URL "127.0.0.1:8080" is not a URL (expected the service\'s address, e.g. http://127.0.0.1:8080)\n');
    const ftp = await run([LAUNCHER], { SERVICE_URL: 'ftp://127.0.0.1:8080', SERVICE_API_KEY: key });
    assert.equal(ftp.code, 1);
    assert.equal(ftp.stderr, "stock-data-mcp: SERVICE_URL ftp://127.0.0.1:8080 is not an http(s) URL (expected the service's address, e.g. http://127.0.0.1:8080)\n");
  });

  it('the right service and key: it starts and answers on stdio', async () => {
    const child = spawn(process.execPath, [LAUNCHER], { env: { PATH: process.env.PATH ?? '', SERVICE_URL: t.url, SERVICE_API_KEY: key }, cwd: tmpdir() });
    let stdout = '';
    const answered = new Promise<void>((done) =>
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        if (stdout.includes('\n')) done();
      }),
    );
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await answered;
    child.kill();
    assert.deepEqual(JSON.parse(stdout.split('\n')[0]!), { jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('serve on a port in use', () => {
  it('prints a one-line hint and exits 1, no stack trace', async () => {
    const blocker = createServer();
    const port = await listen(blocker);
    const tmp = tempDir();
    try {
      const r = await run(['--import', 'tsx', resolve(ROOT, 'src', 'cli', 'main.ts'), 'serve'], {
        DATA_DIR: tmp.dir,
        HOST: '127.0.0.1',
        PORT: String(port),
        DEMO_SCALE: '0.05',
        LOG_LEVEL: 'silent',
      }, ROOT);
      assert.equal(r.code, 1);
      // The key of this first start was shown before the listen failed (it is stored hashed
      // only, so it could not be shown again), on stderr: stdout is the log stream.
      assert.match(
        r.stderr,
        new RegExp(`^\\nDemo API key \\(free plan, for the demo universe; shown once;[^\\n]*\\nsk_live_[A-Za-z0-9_-]{43}\\n\\nPort ${port} on 127\\.0\\.0\\.1 is already in use \\(another copy of the service\\?\\)\\. Stop it, or start on another port: PORT=${port + 1} npm start\\n$`),
      );
      assert.ok(!r.stdout.includes('sk_live_'), 'no key on stdout');
    } finally {
      await new Promise((done) => blocker.close(done));
      tmp.cleanup();
    }
  });
});
