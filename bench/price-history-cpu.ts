// CPU time of get_price_history's day bars, in process, for every stock of a bench store: the
// history cache's read (split-adjusted when the build adjusts), the answer's rows and their
// bytes (jsonBytes), with a fresh cache (each stock asked twice: a windowed first read, then the
// whole history) and with every history held (three passes). CPU time, not requests a second, so
// that two builds can be compared on a machine busy with other work: run each a few times,
// alternated.
//   BENCH_BUILD_DIR=<build> node --import tsx bench/price-history-cpu.ts [universe] [asOf]
// universe: a directory under bench/.data (default default-x1); asOf default 2026-11-28. Prints
// one line: CPU ms of each part and the bytes answered (equal across builds when no stock splits).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as History from '../src/serving/history.js';
import type * as PriceHistory from '../src/tools/get-price-history.js';
import type * as Sqlite from '../src/store/sqlite.js';
import type * as Json from '../src/wire/json-bytes.js';
import type { DayBars } from '../src/domain/series.js';
import { DATA_ROOT } from './lib/server.js';

const buildDir = process.env.BENCH_BUILD_DIR;
const built = buildDir === undefined ? join(import.meta.dirname, '..', '.tmp', 'bench-build', 'dist') : join(resolve(buildDir), 'dist');
const from = (module: string) => (existsSync(join(built, `${module}.js`)) ? pathToFileURL(join(built, `${module}.js`)).href : `../src/${module}.js`);
const { openSqliteStore } = (await import(from('store/sqlite'))) as typeof Sqlite;
const { StockHistories } = (await import(from('serving/history'))) as typeof History;
const { dayRowsInFormat } = (await import(from('tools/get-price-history'))) as typeof PriceHistory;
const { jsonBytes } = (await import(from('wire/json-bytes'))) as typeof Json;

const [universe = 'default-x1', asOf = '2026-11-28'] = process.argv.slice(2);
const store = await openSqliteStore(join(DATA_ROOT, universe, 'service.sqlite'));
const securities = await store.market.securities();
const window = { interval: 'day' as const, limit: 2600 };
// A build with `adjusted` answers { bars, splits }; one without answers the bars (its third argument is ignored).
const answer = async (histories: History.StockHistories, id: number): Promise<number> => {
  const got = (await histories.priceBarsOrDays(id, window, true)) as unknown as { bars: DayBars } | DayBars;
  return jsonBytes(dayRowsInFormat('rows', 'bars' in got ? got.bars : got)).length;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let bytes = 0;
let t = cpuMs();
const histories = new StockHistories(store.market, asOf);
for (const s of securities) bytes += (await answer(histories, s.id)) + (await answer(histories, s.id));
const fresh = cpuMs() - t;
t = cpuMs();
for (let pass = 0; pass < 3; pass++) for (const s of securities) bytes += await answer(histories, s.id);
const held = cpuMs() - t;
process.stdout.write(`${buildDir ?? 'sources'}: ${securities.length} stocks; fresh cache (2 calls each) ${Math.round(fresh)} ms CPU; held (3 passes) ${Math.round(held)} ms CPU; ${bytes} bytes\n`);
await store.close();
