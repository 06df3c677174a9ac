// `npm run bench -- oauth-documents`: the service's memory while six client ID metadata
// documents of 300 MB each are asked for at once (docs/security.md, "OAuth"). The service (a
// child process, OAUTH=on, OAUTH_LOOPBACK_CLIENT_DOCUMENTS=on so it fetches http documents from
// this process's loopback server, demo universe at scale 0.1) gets six GET /oauth/authorize
// requests, each naming another document URL; each document is 300 MB of chunked JSON-looking
// bytes, written as fast as the reader takes them. Reports each answer's status and reason, the
// bytes the document server managed to write, the service's RSS before, and its peak RSS
// (VmHWM) after. Results in bench/oauth-documents.json.
//
//   BENCH_DOC_MB=300        size of each document
//   BENCH_DOC_COUNT=6       documents asked for at once

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildService, DATA_ROOT, ROOT, startServer, stopServer } from './lib/server.js';
import { log, procStatusBytes, sleep } from './lib/util.js';

const DOC_MB = Number(process.env.BENCH_DOC_MB ?? 300);
const DOC_COUNT = Number(process.env.BENCH_DOC_COUNT ?? 6);
const MiB = 1_048_576;

export async function main(): Promise<void> {
  buildService();
  const written = new Map<string, number>();
  const docs = createServer((req, res) => {
    const path = req.url ?? '/';
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(65_536, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < DOC_MB * MiB) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => written.set(path, sent));
    pump();
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  const docOrigin = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;

  const dataDir = join(DATA_ROOT, 'oauth-documents');
  rmSync(dataDir, { recursive: true, force: true });
  const server = await startServer({
    dataDir,
    logLevel: 'warn',
    demo: { size: 'default', scale: 0.1 },
    env: { OAUTH: 'on', PUBLIC_URL: 'https://bench.example', OAUTH_LOOPBACK_CLIENT_DOCUMENTS: 'on' },
  });
  try {
    await sleep(2_000);
    const rssBefore = procStatusBytes(server.pid, 'VmRSS') ?? 0;
    const peakBefore = procStatusBytes(server.pid, 'VmHWM') ?? 0;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: DOC_COUNT }, async (_, i) => {
        const params = new URLSearchParams({ response_type: 'code', client_id: `${docOrigin}/doc-${i}.json`, redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
        const res = await fetch(`${server.url}/oauth/authorize?${params}`, { redirect: 'manual' });
        const reason = /<code id="reason">([^<]*)<\/code>/.exec(await res.text())?.[1] ?? null;
        return { status: res.status, reason };
      }),
    );
    const elapsedMs = Math.round(performance.now() - started);
    await sleep(500);
    const peakAfter = procStatusBytes(server.pid, 'VmHWM') ?? 0;
    const result = {
      documents: DOC_COUNT,
      documentMiB: DOC_MB,
      answers,
      elapsedMs,
      writtenMiB: [...written.values()].map((b) => Math.round((b / MiB) * 10) / 10),
      rssBeforeMiB: Math.round(rssBefore / MiB),
      peakBeforeMiB: Math.round(peakBefore / MiB),
      peakAfterMiB: Math.round(peakAfter / MiB),
      measuredAt: new Date().toISOString(),
    };
    log(JSON.stringify(result, null, 2));
    writeFileSync(join(ROOT, 'bench', 'oauth-documents.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stopServer(server);
    docs.closeAllConnections();
    docs.close();
  }
}
