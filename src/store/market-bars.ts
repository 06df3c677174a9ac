// Market data, the bars: the rows (the record), and beside them the bar packs (./bar-packs.ts)
// and split events (./bar-splits.ts) each write keeps current; the reads of one stock's history
// (rows, or columns from its packs, on SQLite's reader threads when there are any) and the
// recompute's reads of the whole universe (each stock's last bars, closes, split events).

import { sql, type CompiledQuery, type Transaction } from 'kysely';
import { dayNumber } from '../domain/calendar.js';
import type { DailyBar, Market, SnapshotBar } from '../domain/model.js';
import type { SplitEvent } from '../domain/price-change.js';
import type { BarSeries, MarketCapSeries } from '../domain/series.js';
import { mergePack, packRead, type PackedBar } from './bar-packs.js';
import { writeBarSplits, writtenBars } from './bar-splits.js';
import type { UniverseSlice } from './market-types.js';
import type { SeriesRange } from './series-rows.js';
import type { BulkReads, MarketContext } from './market-reads.js';
import { groupById, upsert } from './queries.js';
import type { DB } from './schema.js';
import { seriesOf, type SeriesColumns, type SeriesKind } from './series-rows.js';

/** Securities whose stored packs one write reads at a time. */
const PACKS_PER_READ = 500;

/**
 * Stocks and dates per read of `closesOnOrBefore`: every read has this many (the last padded
 * with ones that find nothing), so that it is one statement, prepared once.
 */
const CLOSES_PER_READ = 128;
/** Stocks and dates of one request's read of `closesOnOrBefore` (a stock's three base dates), read on the calling thread. */
const FEW_PROBES = 4;

const BAR_COLUMNS = [
  'securities.market',
  'securities.code',
  'bars.date',
  'bars.open',
  'bars.high',
  'bars.low',
  'bars.close',
  'bars.volume',
  'bars.traded_value',
  'bars.shares',
  'bars.market_cap',
  'bars.source',
] as const;

export class BarsData {
  constructor(
    private readonly ctx: MarketContext,
    private readonly bulk: BulkReads,
  ) {}

  /** `onOrBefore`'s statements, one a column and size (`${column}${size}`), compiled on first use. */
  private readonly onOrBeforeStatements: Record<string, CompiledQuery> = {};

  /** Upserts the bars (of known securities) and brings their packs and split events along, in the write's transaction. */
  async write(trx: Transaction<DB>, bars: readonly DailyBar[], idOf: (row: DailyBar) => number): Promise<void> {
    const { rowRunner, rawRows } = this.ctx.dialect;
    await upsert(
      rowRunner,
      trx,
      'bars',
      ['security_id', 'date'],
      bars.map((b) => ({
        security_id: idOf(b),
        date: b.date,
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        volume: b.volume,
        traded_value: b.tradedValue,
        shares: b.shares,
        market_cap: b.marketCap,
        source: b.source,
      })),
    );
    await this.writePacks(trx, bars, idOf);
    await writeBarSplits(trx, writtenBars(bars.map((b) => ({ securityId: idOf(b), date: b.date, close: b.close, shares: b.shares }))), rawRows, rowRunner);
  }

  /**
   * Rewrites the packs of the years `bars` touched (./bar-packs.ts), in the write's transaction:
   * each becomes its stored pack with the written bars merged in, which is its year's rows again.
   */
  private async writePacks(trx: Transaction<DB>, bars: readonly DailyBar[], idOf: (row: DailyBar) => number): Promise<void> {
    // The bars written per security and year, in the order given (security id x 10,000 + year).
    const touched = new Map<number, DailyBar[]>();
    for (const bar of bars) {
      const key = idOf(bar) * 10_000 + Number(bar.date.slice(0, 4));
      const group = touched.get(key);
      if (group === undefined) touched.set(key, [bar]);
      else group.push(bar);
    }
    const keys = [...touched.keys()];
    for (let i = 0; i < keys.length; i += PACKS_PER_READ) {
      const chunk = keys.slice(i, i + PACKS_PER_READ);
      const years = chunk.map((key) => key % 10_000);
      const stored = await trx
        .selectFrom('bar_packs')
        .select(['security_id', 'year', 'data'])
        .where('security_id', 'in', [...new Set(chunk.map((key) => Math.floor(key / 10_000)))])
        .where('year', '>=', Math.min(...years))
        .where('year', '<=', Math.max(...years))
        .execute();
      const held = new Map(stored.map((p) => [p.security_id * 10_000 + p.year, p.data]));
      const packs = chunk.map((key) => ({
        security_id: Math.floor(key / 10_000),
        year: key % 10_000,
        data: mergePack(held.get(key), writtenByDay(touched.get(key) as DailyBar[])),
      }));
      await upsert(this.ctx.dialect.rowRunner, trx, 'bar_packs', ['security_id', 'year'], packs);
    }
  }

  async bars(securityId: number, from?: string, to?: string): Promise<DailyBar[]> {
    let q = this.ctx.db.selectFrom('bars').innerJoin('securities', 'securities.id', 'bars.security_id').select(BAR_COLUMNS).where('bars.security_id', '=', securityId);
    if (from !== undefined) q = q.where('bars.date', '>=', from);
    if (to !== undefined) q = q.where('bars.date', '<=', to);
    return (await this.ctx.queries.arrays(q.orderBy('bars.date'))).map(toBar);
  }

  async barSeries(securityId: number, range: SeriesRange): Promise<BarSeries> {
    return seriesOf('bars', await this.seriesColumns('bars', securityId, range));
  }

  async marketCapSeries(securityId: number, range: SeriesRange): Promise<MarketCapSeries> {
    return seriesOf('caps', await this.seriesColumns('caps', securityId, range));
  }

  /** On the reader threads when there are any, else (or when they cannot answer) here. */
  private async seriesColumns(kind: SeriesKind, securityId: number, range: SeriesRange): Promise<SeriesColumns> {
    const readers = this.ctx.dialect.seriesReaders;
    if (readers) {
      try {
        return await readers.columns(kind, securityId, range);
      } catch {
        // read here instead
      }
    }
    const read = packRead(kind, range);
    const run = this.ctx.queries.hotArrays(`barPacks${read.newestFirst ? 'Desc' : ''}`, (p) =>
      this.ctx.db
        .selectFrom('bar_packs')
        .select('data')
        .where('security_id', '=', p.number(0))
        .where('year', '>=', p.number(1))
        .where('year', '<=', p.number(2))
        .orderBy('year', read.newestFirst ? 'desc' : 'asc'),
    );
    const rows = await run([securityId, read.years.first, read.years.last]);
    return read.columnsOf(rows.map(([data]) => data as Uint8Array));
  }

  async closesOnOrBefore(wanted: readonly { securityId: number; date: string }[], here = false): Promise<(number | null)[]> {
    return this.onOrBefore('close', wanted, here);
  }

  async listedSharesOnOrBefore(wanted: readonly { securityId: number; date: string }[]): Promise<(number | null)[]> {
    return this.onOrBefore('shares', wanted);
  }

  /** A column of the last bar on or before each of `wanted`: `closesOnOrBefore` and `listedSharesOnOrBefore`. */
  private async onOrBefore(column: 'close' | 'shares', wanted: readonly { securityId: number; date: string }[], here = false): Promise<(number | null)[]> {
    // One key probe per stock and date, `size` to a statement compiled once; the row's place
    // (w.i) is a literal, so the parameters are the stocks and dates. Padding asks for security
    // 0, which no stock has. One request's few (a stock's three base dates) are read here, with
    // a statement of FEW_PROBES; more are asked for at once, CLOSES_PER_READ a read: a reader
    // thread answers them back to back, or this thread (`here`).
    const few = wanted.length <= FEW_PROBES;
    const size = few ? FEW_PROBES : CLOSES_PER_READ;
    const compiled = (this.onOrBeforeStatements[`${column}${size}`] ??= sql`with w(i, security_id, date) as (values ${sql.join(
      Array.from({ length: size }, (_, i) => sql`(${sql.lit(i)}, cast(${0} as integer), ${''})`),
    )})
      select w.i, (select p.${sql.ref(column)} from bars p where p.security_id = w.security_id and p.date <= w.date order by p.date desc limit 1) as value from w`.compile(this.ctx.db));
    const out: (number | null)[] = new Array<number | null>(wanted.length).fill(null);
    const reads: Promise<void>[] = [];
    for (let k = 0; k < wanted.length; k += size) {
      const parameters: unknown[] = [];
      for (let i = 0; i < size; i++) {
        const w = wanted[k + i];
        parameters.push(w?.securityId ?? 0, w?.date ?? '');
      }
      const query = { compile: () => ({ ...compiled, parameters }) };
      if (few || here) {
        for (const [place, value] of await this.ctx.queries.arrays(query)) {
          const at = k + Number(place);
          if (at < wanted.length && value !== null) out[at] = Number(value);
        }
        continue;
      }
      reads.push(
        this.bulk.rowColumns(query, ['int', 'nullableFloat']).then(({ count, columns: [places, values] }) => {
          for (let r = 0; r < count; r++) {
            const at = k + (places?.[r] as number);
            const value = values?.[r] as number;
            if (at < wanted.length && !Number.isNaN(value)) out[at] = value;
          }
        }),
      );
    }
    await Promise.all(reads);
    return out;
  }

  async splitEvents(after: string, through: string): Promise<Map<number, SplitEvent[]>> {
    const rows = await this.ctx.queries.arrays(
      this.ctx.db.selectFrom('bar_splits').select(['security_id', 'date', 'factor']).where('date', '>', after).where('date', '<=', through).orderBy('security_id').orderBy('date'),
    );
    return groupById(rows, (row) => ({ date: row[1] as string, factor: Number(row[2]) }));
  }

  async stockSplitEvents(securityId: number, through: string): Promise<SplitEvent[]> {
    // A range of the (security_id, date) key.
    const run = this.ctx.queries.hotArrays('stockSplits', (p) =>
      this.ctx.db.selectFrom('bar_splits').select(['date', 'factor']).where('security_id', '=', p.number(0)).where('date', '<=', p.text(1)).orderBy('date'),
    );
    return (await run([securityId, through])).map((row) => ({ date: row[0] as string, factor: Number(row[1]) }));
  }

  async lastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, SnapshotBar[]>> {
    // Stock by stock, each a range of the (security, date) key. Driven from bars instead,
    // SQLite either walks the whole table in key order or makes one key lookup per bar through
    // bars_date. CROSS JOIN fixes SQLite's join order.
    return this.bulk.groupedRows(
      this.bulk
        .withWindowStarts(from, asOf, count, slice)
        .selectFrom('starts')
        .crossJoin('bars')
        .whereRef('bars.security_id', '=', 'starts.security_id')
        .whereRef('bars.date', '>=', 'starts.start')
        .where('bars.date', '<=', asOf)
        .select(['bars.security_id', 'bars.date', 'bars.close', 'bars.traded_value', 'bars.shares', 'bars.market_cap'])
        .orderBy('starts.security_id')
        .orderBy('bars.date'),
      ['int', 'day', 'float', 'float', 'float', 'float'],
      (at, date) => ({ date: date(1), close: at(2), tradedValue: at(3), shares: at(4), marketCap: at(5) }),
    );
  }

  async stockLastBars(securityId: number, from: string, asOf: string, count: number): Promise<SnapshotBar[]> {
    // `lastBars` of one stock: a range of the (security, date) key read newest first, by a
    // statement compiled once, on this thread (a reader thread's round trip costs more than
    // these few rows).
    const run = this.ctx.queries.hotArrays('stockLastBars', (p) =>
      this.ctx.db
        .selectFrom('bars')
        .select(['date', 'close', 'traded_value', 'shares', 'market_cap'])
        .where('security_id', '=', p.number(0))
        .where('date', '>=', p.text(1))
        .where('date', '<=', p.text(2))
        .orderBy('date', 'desc')
        .limit(p.number(3)),
    );
    const rows = await run([securityId, from, asOf, count]);
    const out: SnapshotBar[] = new Array<SnapshotBar>(rows.length);
    rows.forEach((r, i) => (out[rows.length - 1 - i] = { date: r[0] as string, close: Number(r[1]), tradedValue: Number(r[2]), shares: Number(r[3]), marketCap: Number(r[4]) }));
    return out;
  }

  async firstBarDates(): Promise<Map<number, string>> {
    // One seek of the bars' key per security (its first bar), not a scan of the bars.
    const rows = await this.ctx.queries.arrays(
      this.ctx.db.selectFrom('securities').select(['securities.id', sql<string | null>`(select min(bars.date) from bars where bars.security_id = securities.id)`.as('first')]),
    );
    const out = new Map<number, string>();
    for (const [id, first] of rows) if (first !== null) out.set(Number(id), first as string);
    return out;
  }

  async tradingDates(market: Market): Promise<string[]> {
    const rows = await this.ctx.db
      .selectFrom('bars')
      .innerJoin('securities', 'securities.id', 'bars.security_id')
      .where('securities.market', '=', market)
      .select('bars.date')
      .distinct()
      .orderBy('bars.date')
      .execute();
    return rows.map((r) => r.date);
  }
}

// Reads an array in the order of BAR_COLUMNS. Number(): PostgreSQL's driver may hand back
// numeric columns as strings.
function toBar(r: unknown[]): DailyBar {
  return {
    market: r[0] as Market,
    code: r[1] as string,
    date: r[2] as string,
    open: Number(r[3]),
    high: Number(r[4]),
    low: Number(r[5]),
    close: Number(r[6]),
    volume: Number(r[7]),
    tradedValue: Number(r[8]),
    shares: Number(r[9]),
    marketCap: Number(r[10]),
    source: r[11] as string,
  };
}

/**
 * One security's bars of a year as a pack merges them: ascending by day, the last one written
 * for a day standing (as the row upserts leave it). Most writes come in date order already.
 */
function writtenByDay(bars: readonly DailyBar[]): PackedBar[] {
  // The values in COLUMNS_OF.bars order (./series-rows.ts), as a pack holds them.
  const toPacked = (bar: DailyBar): PackedBar => ({ day: dayNumber(bar.date), values: [bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tradedValue, bar.shares] });
  let ascending = true;
  for (let k = 1; k < bars.length && ascending; k++) ascending = (bars[k - 1] as DailyBar).date < (bars[k] as DailyBar).date;
  if (ascending) return bars.map(toPacked);
  const byDate = new Map<string, DailyBar>();
  for (const bar of bars) byDate.set(bar.date, bar);
  return [...byDate.keys()].sort().map((date) => toPacked(byDate.get(date) as DailyBar));
}
