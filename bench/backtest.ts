// `npm run bench -- backtest`: a 10-year monthly backtest of one market at full size (issue
// target: <= 5 min on 2 cores), run in this process as `npm run cli -- backtest` runs it
// (src/cli/backtest.ts). The store is the demo's full-size KR market alone (about 2,700 stocks,
// their bars from 2014, filings and flows), made once under bench/.data/backtest-kr-full (a few
// minutes) and kept. Reports the wall time, the CPU time, the peak RSS and the machine load; the
// results in bench/backtest.json.
//
//   BENCH_BACKTEST_FROM=2015-01   first period
//   BENCH_BACKTEST_TO=2024-12     last period (120 months with the default --from)
//   BENCH_BACKTEST_TOP=20         picks per period

import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../src/domain/model.js';
import { backtest, parseBacktestOptions } from '../src/cli/backtest.js';
import { generateDemo } from '../src/sources/demo/index.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { DATA_ROOT, ROOT } from './lib/server.js';
import { log, machineLoad, procStatusBytes, round } from './lib/util.js';

const AS_OF = '2026-11-20';
const FROM = process.env.BENCH_BACKTEST_FROM ?? '2015-01';
const TO = process.env.BENCH_BACKTEST_TO ?? '2024-12';
const TOP = process.env.BENCH_BACKTEST_TOP ?? '20';

/** The demo's full-size KR market, written once (a marker file says it is complete). */
async function krFullStore(): Promise<string> {
  const dir = join(DATA_ROOT, 'backtest-kr-full');
  const file = join(dir, 'service.sqlite');
  if (existsSync(join(dir, 'complete'))) return file;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`writing the demo's full-size KR market as of ${AS_OF} into ${dir} (a few minutes, once)`);
  const started = performance.now();
  const store = await openSqliteStore(file);
  const demo = generateDemo({ asOf: AS_OF, size: 'full' });
  const kr = demo.securities.filter((s) => s.market === 'KR');
  async function* parts(): AsyncGenerator<Partial<Dataset>> {
    yield { securities: kr, fx: demo.fx, trade: demo.trade, sectorExports: demo.sectorExports };
    for (let i = 0; i < kr.length; i += 8) {
      const group = kr.slice(i, i + 8);
      yield { bars: group.flatMap((s) => demo.barsFor(s)), reports: group.flatMap((s) => demo.reportsFor(s)), flows: group.flatMap((s) => demo.flowsFor(s)) };
    }
  }
  await store.market.writeDatasets(parts(), { bulk: true });
  await store.refresh.setMeta('demo_as_of', AS_OF);
  await store.close();
  writeFileSync(join(dir, 'complete'), `${kr.length} KR stocks\n`);
  log(`${kr.length} KR stocks written in ${round((performance.now() - started) / 1000, 1)} s`);
  return file;
}

export async function main(): Promise<void> {
  const file = await krFullStore();
  const store = await openSqliteStore(file);
  const options = parseBacktestOptions(['--market', 'KR', '--from', FROM, '--to', TO, '--top', TOP]);
  const loadAtStart = machineLoad();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let timings = '';
  const report = await backtest(store.market, true, options, () => {}, (t) => (timings += t));
  const wallS = round((performance.now() - started) / 1000, 1);
  const used = process.cpuUsage(cpu);
  await store.close();
  const result = {
    market: 'KR',
    from: FROM,
    to: TO,
    top: Number(TOP),
    periods: report.results.length,
    stocks: report.results[0]?.marketStocks ?? 0,
    wallS,
    cpuS: round((used.user + used.system) / 1e6, 1),
    peakRssMiB: round((procStatusBytes('self', 'VmHWM') ?? 0) / 1_048_576, 0),
    timings: timings.trim(),
    load: { start: loadAtStart, end: machineLoad() },
    targetMet: wallS <= 300,
  };
  writeFileSync(join(ROOT, 'bench', 'backtest.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `backtest KR ${FROM}..${TO}, top ${TOP}: ${result.periods} periods of ${result.stocks} stocks in ${wallS} s wall (target <= 300 s: ${result.targetMet ? 'met' : 'NOT met'}), ` +
      `${result.cpuS} s CPU, peak RSS ${result.peakRssMiB} MiB, load1 ${loadAtStart.load1} -> ${result.load.end.load1}\n${result.timings}\nresults in bench/backtest.json\n`,
  );
}
