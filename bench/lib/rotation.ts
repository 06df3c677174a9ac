// The uncached rotation (target 6, docs/performance.md): every per-stock tool at its default arguments,
// one stock after another over the whole universe, each request sent with
// `Cache-Control: no-cache` so the service computes it anew; the service's `X-Cache` answers are
// counted, so a run proves it never hit the response cache. At 50 connections and at 1.

import { runLoad, type LoadResult } from './load.js';
import { drained, log, machineLoad, procStatusBytes, settingsFromEnv } from './util.js';

const REST = '/api/public/v2';

/** The per-stock tools at their default arguments (the band once per type). */
export const ROTATED_TOOLS: readonly { name: string; path: (code: string) => string }[] = [
  { name: 'price history', path: (c) => `${REST}/stocks/${c}/prices` },
  { name: 'valuation band PER', path: (c) => `${REST}/stocks/${c}/valuation-band` },
  { name: 'valuation band PBR', path: (c) => `${REST}/stocks/${c}/valuation-band?type=pbr` },
  { name: 'valuation band PSR', path: (c) => `${REST}/stocks/${c}/valuation-band?type=psr` },
  { name: 'snapshot', path: (c) => `${REST}/stocks/${c}/snapshot` },
  { name: 'percentile', path: (c) => `${REST}/stocks/${c}/percentile` },
  { name: 'score', path: (c) => `${REST}/stocks/${c}/score` },
];

export type RotationRun = LoadResult & { load1: number; rssBytes: number | null };

export interface RotationRow {
  tool: string;
  at50: RotationRun;
  at1: RotationRun;
}

/** Current resident set size of a process (VmRSS), for start / middle / end readings. */
export function currentRss(pid: number): number | null {
  return procStatusBytes(pid, 'VmRSS');
}

export async function rotateTools(server: { url: string; pid: number }, key: string, codes: readonly string[], connections: number): Promise<RotationRow[]> {
  const settings = settingsFromEnv();
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json', 'cache-control': 'no-cache' };
  const rows: RotationRow[] = [];
  const run = async (path: (c: string) => string, conns: number, offset: number): Promise<RotationRun> => {
    let i = offset;
    const target = {
      url: server.url,
      method: 'GET' as const,
      headers,
      countCache: true,
      nextPath: () => path(encodeURIComponent(codes[i++ % codes.length] as string)),
    };
    await runLoad(target, settings.warmupSeconds, conns);
    await drained(server.url);
    const result = await runLoad(target, settings.seconds, conns);
    await drained(server.url);
    if (result.cacheHits !== 0) throw new Error(`rotation ${path('CODE')}: ${result.cacheHits} responses came from the response cache`);
    return { ...result, load1: machineLoad().load1, rssBytes: currentRss(server.pid) };
  };
  for (const tool of ROTATED_TOOLS) {
    log(`uncached rotation: ${tool.name}, ${connections} connections and 1`);
    // Start the second run half-way through the universe, so it does not follow the first's stocks.
    const at50 = await run(tool.path, connections, 0);
    const at1 = await run(tool.path, 1, Math.floor(codes.length / 2));
    rows.push({ tool: tool.name, at50, at1 });
  }
  return rows;
}
