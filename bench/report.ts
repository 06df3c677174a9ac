// Renders bench/results.json as the Markdown tables of docs/performance.md:
//   node --import tsx bench/report.ts [results.json]

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Run {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}
interface Results {
  meta: { startedAt: string; finishedAt: string; commit: string; settings: { seconds: number; connections: number } };
  http: { rows: { scenario: string; bodyBytes: number; server: Run & { load1: number; cpuUsPerRequest?: number }; ceiling: Run & { cpuUsPerRequest?: number }; ratio: number; fastify?: Run }[] };
  recompute: { universe: string; securities: number; medianLoadMs: number; medianComputeMs: number; medianTotalMs: number; maxStallMs?: number[]; processPeakRssBytes: number | null }[];
  scaling: {
    universe: string;
    securities: number;
    recomputeMs: number;
    pricesUncached: Run;
    bandUncached: Run;
    pricesUncachedOneConnection: Run;
    bandUncachedOneConnection: Run;
    peakRssBytes: number | null;
  }[];
  full: { rankings: (Run & { load1: number }) | null } | null;
  coldStart: { universe: string; listenMs: number; readyMs: number; recomputeLoadMs: number | null; recomputeComputeMs: number | null; peakRssAfterStartBytes: number | null }[];
  firstStart: { spec: { size: string; scale: number }; readyMs: number; demoLoadMs: number | null; peakRssBytes: number | null }[];
  targets: { target: string; value: number | null; met: boolean }[];
}

const file = process.argv[2] ?? join(import.meta.dirname, 'results.json');
const r = JSON.parse(readFileSync(file, 'utf8')) as Results;
const n = (v: number, digits = 0): string => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mib = (b: number | null): string => (b === null ? '-' : `${n(b / 1024 / 1024)} MiB`);
const s = (ms: number | null): string => (ms === null ? '-' : `${n(ms / 1000, 1)} s`);
const out: string[] = [];
const table = (header: string[], align: string[], rows: string[][]) => {
  out.push(`| ${header.join(' | ')} |`, `|${align.join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`), '');
};

out.push(`One run, ${r.meta.startedAt.slice(0, 16)}-${r.meta.finishedAt.slice(11, 16)} UTC, commit ${r.meta.commit}, ${r.meta.settings.seconds} s per run, ${r.meta.settings.connections} connections.`, '');
table(
  ['scenario', 'body', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req (service / ceiling)', 'ceiling req/s', 'ceiling p50 / p99', 'ratio', 'bare Fastify req/s (of the ceiling)', 'load1'],
  ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
  r.http.rows.map((h) => [h.scenario, `${n(h.bodyBytes / 1024, 1)} KB`, n(h.server.requestsPerSecond), n(h.server.p50Ms, 1), n(h.server.p99Ms, 1), h.server.cpuUsPerRequest === undefined ? '-' : `${n(h.server.cpuUsPerRequest)} / ${n(h.ceiling.cpuUsPerRequest ?? Number.NaN)}`, n(h.ceiling.requestsPerSecond), `${n(h.ceiling.p50Ms, 1)} / ${n(h.ceiling.p99Ms, 1)}`, `**${n(h.ratio, 2)}**`, h.fastify ? `${n(h.fastify.requestsPerSecond)} (${n(h.fastify.requestsPerSecond / h.ceiling.requestsPerSecond, 2)})` : '-', n(h.server.load1, 2)]),
);
if (r.full?.rankings) out.push(`Full size, cached REST rankings: ${n(r.full.rankings.requestsPerSecond)} req/s, p50 ${n(r.full.rankings.p50Ms, 1)} ms, p99 ${n(r.full.rankings.p99Ms, 1)} ms.`, '');
table(
  ['universe', 'stocks', 'loadUniverse ms', 'computeSnapshot ms', 'total ms', 'longest event-loop stall ms (each run)', 'process peak RSS'],
  ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
  r.recompute.map((c) => [c.universe, n(c.securities), n(c.medianLoadMs), n(c.medianComputeMs), n(c.medianTotalMs), c.maxStallMs ? c.maxStallMs.join(' / ') : '-', mib(c.processPeakRssBytes)]),
);
table(
  ['universe', 'stocks', 'recompute ms', 'prices 1 conn. p50 / p99', 'band 1 conn. p50 / p99', 'prices 50 conn. req/s, p50 / p99', 'band 50 conn. req/s, p50 / p99', 'service peak RSS'],
  ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
  r.scaling.map((x) => [
    x.universe,
    n(x.securities),
    n(x.recomputeMs),
    `${n(x.pricesUncachedOneConnection.p50Ms, 1)} / ${n(x.pricesUncachedOneConnection.p99Ms, 1)}`,
    `${n(x.bandUncachedOneConnection.p50Ms, 1)} / ${n(x.bandUncachedOneConnection.p99Ms, 1)}`,
    `${n(x.pricesUncached.requestsPerSecond)}, ${n(x.pricesUncached.p50Ms)} / ${n(x.pricesUncached.p99Ms)}`,
    `${n(x.bandUncached.requestsPerSecond)}, ${n(x.bandUncached.p50Ms)} / ${n(x.bandUncached.p99Ms)}`,
    mib(x.peakRssBytes),
  ]),
);
table(
  ['universe', 'cold start: listening', 'cold start: ready', 'of which load + compute', 'RSS after start', 'first start', 'of which demo load', 'first-start peak RSS'],
  ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
  r.coldStart.map((c) => {
    const f = r.firstStart.find((x) => `${x.spec.size}-x${x.spec.scale}` === c.universe);
    return [c.universe, s(c.listenMs), s(c.readyMs), `${s(c.recomputeLoadMs)} + ${s(c.recomputeComputeMs)}`, mib(c.peakRssAfterStartBytes), f ? s(f.readyMs) : '-', f ? s(f.demoLoadMs) : '-', f ? mib(f.peakRssBytes) : '-'];
  }),
);
table(
  ['target', 'measured', 'met'],
  ['---', '---:', '---'],
  r.targets.map((t) => [t.target, t.value === null ? '-' : n(t.value, 2), t.met ? 'yes' : 'no']),
);
process.stdout.write(`${out.join('\n')}\n`);
