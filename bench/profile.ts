// Profiles the service under one load: starts it with --cpu-prof on a cached bench store,
// runs the load, stops it, and prints where the CPU time went (self time by function and by
// package). The .cpuprofile is kept for Chrome DevTools.
//   node --import tsx bench/profile.ts <target> [seconds] [universe]
//   target: rankings | rankings200 | score | prices | band | mcp-call | mcp-list | prices-uncached | band-uncached | asof-snapshot-uncached | asof-prices-uncached | screen-uncached | recompute
//   universe: a directory name under bench/.data (default default-x1); run `npm run bench` once first.

import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad, type LoadTarget } from './lib/load.js';
import { buildService, createPaidKey, DATA_ROOT, historiesWarmed, ROOT, startServer, stopServer } from './lib/server.js';
import { log } from './lib/util.js';

const [target = 'rankings', secondsArg = '10', universe = 'default-x1'] = process.argv.slice(2);
const dataDir = join(DATA_ROOT, universe);
const profDir = join(ROOT, '.tmp', 'bench-profiles');
mkdirSync(profDir, { recursive: true });

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function and by package of the samples of the last `lastSeconds` of the profile (the load's). */
function summarise(file: string, lastSeconds: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const at: number[] = [];
  let t = 0;
  for (const delta of profile.timeDeltas) at.push((t += delta));
  const from = t - lastSeconds * 1e6;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if ((at[i] ?? 0) >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const short = url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '');
    const fn = `${functionName || '(anonymous)'} ${short.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(short)?.[1] ?? (short.includes('bench-build/dist/') ? `src/${short.split('bench-build/dist/')[1]?.split('/')[0] ?? ''}` : short === '' ? functionName || '(native)' : short.startsWith('node:') ? 'node internals' : short);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const show = (title: string, map: Map<string, number>, n: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
    }
  };
  process.stdout.write(`profile ${file}: ${(total / 1000).toFixed(0)} ms sampled in the last ${lastSeconds} s (the load)\n`);
  show('self time by package / area', byPackage, 25);
  show('self time by function', byFunction, 40);
}

function newestProfile(since: number): string {
  const files = readdirSync(profDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(profDir, f))
    .filter((f) => statSync(f).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files[0] === undefined) throw new Error('no profile written');
  return files[0];
}

async function main(): Promise<void> {
  buildService();
  const started = Date.now();
  const key = createPaidKey(dataDir);
  const server = await startServer({ dataDir, logLevel: process.env.BENCH_LOG_LEVEL ?? 'info', nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
  const db = new Database(join(dataDir, 'service.sqlite'), { readonly: true });
  const codes = (db.prepare('select code from securities order by market, code').all() as { code: string }[]).map((r) => r.code);
  db.close();
  // As the load benches: after the history fill that follows the start (it reads every stock's history).
  if (!(await historiesWarmed(server))) log('the history fill did not finish within 120 s; the load runs beside it');
  const top = (await (await fetch(`${server.url}/api/public/v2/rankings?limit=1`, { headers })).json()) as { rows: { ticker: string }[] };
  const code = top.rows[0]?.ticker ?? (codes[0] as string);
  const rest = `${server.url}/api/public/v2`;
  let i = 0;
  const rotate = (path: (c: string, pass: number) => string) => () => {
    const c = codes[i % codes.length] as string;
    const pass = Math.floor(i / codes.length);
    i++;
    return path(c, pass);
  };
  const mcp = (body: unknown): LoadTarget => ({ url: `${server.url}/api/mcp`, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const targets: Record<string, LoadTarget | null> = {
    rankings: { url: `${rest}/rankings`, method: 'GET', headers },
    rankings200: { url: `${rest}/rankings?market=KR,US&limit=200`, method: 'GET', headers },
    score: { url: `${rest}/stocks/${code}/score`, method: 'GET', headers },
    prices: { url: `${rest}/stocks/${code}/prices?limit=2600`, method: 'GET', headers },
    band: { url: `${rest}/stocks/${code}/valuation-band?type=per&from=2014-01-01`, method: 'GET', headers },
    'mcp-call': mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_rankings', arguments: {} } }),
    'mcp-list': mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    'prices-uncached': { url: server.url, method: 'GET', headers, nextPath: rotate((c, p) => `/api/public/v2/stocks/${encodeURIComponent(c)}/prices?limit=${2600 - (p % 1000)}`) },
    'band-uncached': {
      url: server.url,
      method: 'GET',
      headers,
      nextPath: rotate((c, p) => `/api/public/v2/stocks/${encodeURIComponent(c)}/valuation-band?type=per&from=${new Date(Date.UTC(2014, 0, 1 + (p % 1000))).toISOString().slice(0, 10)}`),
    },
    // A new (stock, day) pair each request: a universe of one computed for each (src/serving/as-of.ts).
    'asof-snapshot-uncached': {
      url: server.url,
      method: 'GET',
      headers,
      nextPath: rotate((c, p) => `/api/public/v2/stocks/${encodeURIComponent(c)}/snapshot?asOf=${new Date(Date.UTC(2024, 0, 2 + (p % 600))).toISOString().slice(0, 10)}`),
    },
    'asof-prices-uncached': {
      url: server.url,
      method: 'GET',
      headers,
      nextPath: rotate((c, p) => `/api/public/v2/stocks/${encodeURIComponent(c)}/prices?asOf=${new Date(Date.UTC(2025, 0, 2 + (p % 600))).toISOString().slice(0, 10)}`),
    },
    'screen-uncached': { url: `${rest}/screen?market=KR,US&filters=roe:10:,per::20,operatingMargin:5:&sort=fcfYield:desc&limit=50`, method: 'GET', headers: { ...headers, 'cache-control': 'no-cache' } },
    recompute: null,
  };
  const chosen = targets[target];
  if (chosen === undefined) throw new Error(`unknown target ${target}`);
  try {
    if (chosen !== null) {
      log(`profiling ${target} for ${secondsArg} s on ${universe}`);
      const result = await runLoad(chosen, Number(secondsArg), 50);
      process.stdout.write(`${target}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}\n`);
    }
  } finally {
    await stopServer(server);
  }
  summarise(newestProfile(started), Number(secondsArg));
}

await main();
