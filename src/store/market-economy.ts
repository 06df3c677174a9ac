// Market data, the economy's series: the USD/KRW rate by day, the ECB's euro reference rates by
// day and currency, Korea's trade and each sector's exports by month. Small tables, written by
// their own sources and read whole (or a range of months).

import type { Kysely, Transaction } from 'kysely';
import type { Dataset, EuroReferenceRate, FxRate, SectorExportMonth, TradeMonth } from '../domain/model.js';
import { upsert, type RowRunner } from './queries.js';
import type { DB } from './schema.js';

/** Upserts the FX rates, trade months and sector exports of a write, in its transaction. */
export async function writeEconomy(trx: Transaction<DB>, rowRunner: RowRunner | undefined, data: Partial<Dataset>): Promise<void> {
  await upsert(rowRunner, trx, 'fx', ['date'], (data.fx ?? []).map((f) => ({ date: f.date, usd_krw: f.usdKrw, source: f.source })));
  await upsert(
    rowRunner,
    trx,
    'reference_rates',
    ['currency', 'date'],
    (data.referenceRates ?? []).map((r) => ({ date: r.date, currency: r.currency, per_eur: r.perEur, source: r.source })),
  );
  await upsert(
    rowRunner,
    trx,
    'trade',
    ['month'],
    (data.trade ?? []).map((t) => ({ month: t.month, exports: t.exports, imports: t.imports, balance: t.balance, source: t.source })),
  );
  await upsert(
    rowRunner,
    trx,
    'sector_exports',
    ['month', 'sector'],
    (data.sectorExports ?? []).map((x) => ({ month: x.month, sector: x.sector, exports: x.exports, source: x.source })),
  );
}

export async function fx(db: Kysely<DB>): Promise<FxRate[]> {
  const rows = await db.selectFrom('fx').selectAll().orderBy('date').execute();
  return rows.map((r) => ({ date: r.date, usdKrw: Number(r.usd_krw), source: r.source }));
}

/** The ECB's reference rates published on or after `from` (every day when absent), by currency and day. */
export async function referenceRates(db: Kysely<DB>, from?: string): Promise<EuroReferenceRate[]> {
  let q = db.selectFrom('reference_rates').selectAll();
  if (from !== undefined) q = q.where('date', '>=', from);
  const rows = await q.orderBy('currency').orderBy('date').execute();
  return rows.map((r) => ({ date: r.date, currency: r.currency, perEur: Number(r.per_eur), source: r.source }));
}

export async function trade(db: Kysely<DB>): Promise<TradeMonth[]> {
  const rows = await db.selectFrom('trade').selectAll().orderBy('month').execute();
  return rows.map((r) => ({
    month: r.month,
    exports: Number(r.exports),
    imports: Number(r.imports),
    balance: Number(r.balance),
    source: r.source,
  }));
}

export async function sectorExports(db: Kysely<DB>, months?: { from: string; to: string }): Promise<SectorExportMonth[]> {
  let q = db.selectFrom('sector_exports').selectAll();
  if (months) q = q.where('month', '>=', months.from).where('month', '<=', months.to);
  const rows = await q.orderBy('month').orderBy('sector').execute();
  return rows.map((r) => ({ month: r.month, sector: r.sector, exports: Number(r.exports), source: r.source }));
}
