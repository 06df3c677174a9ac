// A mixed uncached load (targets 3 and 5, docs/performance.md): every per-stock tool in turn, one stock after
// another, `Cache-Control: no-cache`, while this process samples the service's resident memory
// and, at the given moments, makes the service recompute its dataset as an hourly refresh does
// on a serving instance: it bumps the dataset version in the store, the service's version poller
// (every 3 s) sees it and recomputes while it keeps serving. How long the recompute held the
// event loop comes from the service's own `dataset swapped` log line (`maxStallMs`, measured with
// monitorEventLoopDelay); the latency the load saw is in its p99 and max.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { runLoad, type LoadResult } from './load.js';
import { ROTATED_TOOLS, currentRss } from './rotation.js';
import { log, machineLoad, round, sleep } from './util.js';

export interface RefreshUnderLoad {
  /** Seconds into the load when the version was bumped. */
  triggeredAtS: number;
  /** Bump to the service's swap, as its log line's time says (includes up to 3 s of polling). */
  swappedAfterMs: number | null;
  loadMs: number | null;
  computeMs: number | null;
  /** The service's longest event-loop stall during the recompute. */
  maxStallMs: number | null;
}

export interface MixedLoadRun {
  seconds: number;
  connections: number;
  load: LoadResult & { load1: number };
  /** VmRSS before the load, then every `sampleEveryS` seconds. */
  rss: { atS: number; bytes: number | null }[];
  rssStartBytes: number | null;
  rssMiddleBytes: number | null;
  rssEndBytes: number | null;
  refreshes: RefreshUnderLoad[];
}

/** New complete lines appended to a file since the last call. */
function tail(file: string): () => string[] {
  let offset = statSync(file).size;
  let partial = '';
  return () => {
    const size = statSync(file).size;
    if (size <= offset) return [];
    const buffer = Buffer.alloc(size - offset);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = size;
    const lines = (partial + buffer.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    return lines;
  };
}

interface Swapped {
  time: number;
  loadMs?: number;
  computeMs?: number;
  maxStallMs?: number;
}

export async function mixedLoad(
  server: { url: string; pid: number; logFile: string; dataDir: string },
  key: string,
  codes: readonly string[],
  options: { seconds: number; connections: number; refreshAtS: readonly number[]; sampleEveryS: number },
): Promise<MixedLoadRun> {
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json', 'cache-control': 'no-cache' };
  let i = 0;
  const nextPath = () => {
    const tool = ROTATED_TOOLS[i % ROTATED_TOOLS.length] as (typeof ROTATED_TOOLS)[number];
    const code = codes[Math.floor(i / ROTATED_TOOLS.length) % codes.length] as string;
    i++;
    return tool.path(encodeURIComponent(code));
  };
  const newLines = tail(server.logFile);
  const swaps: Swapped[] = [];
  const readSwaps = () => {
    for (const text of newLines()) {
      if (!text.includes('"dataset swapped"')) continue;
      try {
        swaps.push(JSON.parse(text) as Swapped);
      } catch {
        // a partial line
      }
    }
  };
  const store = await openSqliteStore(join(server.dataDir, 'service.sqlite'));
  const rss: MixedLoadRun['rss'] = [{ atS: 0, bytes: currentRss(server.pid) }];
  const bumps: { atS: number; at: number }[] = [];
  const t0 = performance.now();
  const pending = [...options.refreshAtS].sort((a, b) => a - b);
  let nextSample = options.sampleEveryS;
  const ticker = setInterval(() => {
    const s = (performance.now() - t0) / 1000;
    if (s >= nextSample) {
      rss.push({ atS: round(s, 1), bytes: currentRss(server.pid) });
      nextSample += options.sampleEveryS;
    }
    if (pending.length > 0 && s >= (pending[0] as number)) {
      pending.shift();
      const at = Date.now();
      bumps.push({ atS: round(s, 1), at });
      store.refresh.bumpDatasetVersion().catch((err: unknown) => log(`bump failed: ${String(err)}`));
    }
    readSwaps();
  }, 250);
  let load: LoadResult;
  try {
    load = await runLoad({ url: server.url, method: 'GET', headers, countCache: true, nextPath }, options.seconds, options.connections);
  } finally {
    clearInterval(ticker);
  }
  rss.push({ atS: round((performance.now() - t0) / 1000, 1), bytes: currentRss(server.pid) });
  // The log is flushed every second: wait for the last swap's line.
  const deadline = Date.now() + 15_000;
  while (swaps.length < bumps.length && Date.now() < deadline) {
    await sleep(250);
    readSwaps();
  }
  await store.close();
  if (load.cacheHits !== 0) throw new Error(`mixed load: ${String(load.cacheHits)} responses came from the response cache`);
  const refreshes = bumps.map((bump, k): RefreshUnderLoad => {
    const swap = swaps.find((s, j) => j >= k && s.time >= bump.at);
    return {
      triggeredAtS: bump.atS,
      swappedAfterMs: swap ? swap.time - bump.at : null,
      loadMs: swap?.loadMs ?? null,
      computeMs: swap?.computeMs ?? null,
      maxStallMs: swap?.maxStallMs ?? null,
    };
  });
  const middle = rss.reduce((best, r) => (Math.abs(r.atS - options.seconds / 2) < Math.abs(best.atS - options.seconds / 2) ? r : best), rss[0] as (typeof rss)[number]);
  return {
    seconds: options.seconds,
    connections: options.connections,
    load: { ...load, load1: machineLoad().load1 },
    rss,
    rssStartBytes: rss[0]?.bytes ?? null,
    rssMiddleBytes: middle.bytes,
    rssEndBytes: rss.at(-1)?.bytes ?? null,
    refreshes,
  };
}
