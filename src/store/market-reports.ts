// Market data, the filings: the report rows (the record), and beside them each stock's TTM steps
// (./ttm-steps.ts) and report pack (./report-packs.ts), derived again by every write of its
// filings; the reads of the filings, of a stock's steps (the valuation band) and of the recent
// filings of the whole universe (the recompute, from the packs).

import { sql, type Transaction } from 'kysely';
import type { FinancialReport, Market } from '../domain/model.js';
import type { TtmStep } from '../domain/ttm.js';
import type { StoredSecurity, UniverseSlice } from './market-types.js';
import type { MarketContext } from './market-reads.js';
import { byId } from './market-securities.js';
import { upsert } from './queries.js';
import { recentOfPack } from './report-packs.js';
import { REPORT_FIGURES, reportRow, toReport } from './report-rows.js';
import type { DB } from './schema.js';
import { decodeSteps, writeFilingDerivatives } from './ttm-steps.js';

const REPORT_COLUMNS = ['securities.market', 'securities.code', ...REPORT_FIGURES] as const;

export class ReportsData {
  constructor(
    private readonly ctx: MarketContext,
    /** The securities list, for a read of the recent filings whose slice does not bring it. */
    private readonly securities: () => Promise<StoredSecurity[]>,
  ) {}

  /** Upserts the filings (of known securities) and derives again their stocks' TTM steps and report packs, in the write's transaction. */
  async write(trx: Transaction<DB>, reports: readonly FinancialReport[], idOf: (row: FinancialReport) => number): Promise<void> {
    const { rowRunner } = this.ctx.dialect;
    await upsert(
      rowRunner,
      trx,
      'reports',
      ['security_id', 'fiscal_year', 'fiscal_quarter', 'consolidated', 'disclosed_on'],
      reports.map((r) => reportRow(idOf(r), r)),
      // A filing written again without a per-share figure keeps the one an earlier write brought:
      // the OpenDART bulk release carries no dividend section, so its copy of a filing the API
      // read (with its alotMatter.json) must not blank the dividend.
      { basic_eps: sql`coalesce(excluded.basic_eps, reports.basic_eps)`, dividend_per_share: sql`coalesce(excluded.dividend_per_share, reports.dividend_per_share)` },
    );
    // The TTM step function and the report pack of each stock with new filings, from all of its
    // filings as now stored.
    await writeFilingDerivatives(trx, reports.map(idOf), { steps: true, packs: true }, rowRunner);
  }

  async reports(securityId?: number): Promise<FinancialReport[]> {
    let q = this.ctx.db
      .selectFrom('reports')
      .innerJoin('securities', 'securities.id', 'reports.security_id')
      .select(REPORT_COLUMNS);
    if (securityId !== undefined) q = q.where('reports.security_id', '=', securityId);
    const rows = await this.ctx.queries.arrays(
      q.orderBy('reports.security_id').orderBy('reports.fiscal_year').orderBy('reports.fiscal_quarter').orderBy('reports.disclosed_on'),
    );
    return rows.map((r) => toReport(r, r[0] as Market, r[1] as string, 2));
  }

  async recentReports(asOf: string, quarters: number, slice?: UniverseSlice): Promise<Map<number, FinancialReport[]>> {
    // Each stock's report pack (./report-packs.ts), its recent filings made into reports: one
    // value a stock instead of ~9 rows of 25 values.
    if (!Number.isInteger(quarters) || quarters < 1) throw new Error(`recentReports: quarters must be a positive integer, not ${quarters}`);
    let q = this.ctx.db.selectFrom('report_packs').select(['security_id', 'data']);
    if (slice) q = q.where('security_id', '>=', slice.first).where('security_id', '<=', slice.last);
    const rows = await this.ctx.queries.arrays(q.orderBy('security_id'));
    // Market and code from the securities (one string each per stock, not per filing).
    const names = byId(slice?.securities ?? (await this.securities()));
    const out = new Map<number, FinancialReport[]>();
    for (const [id, data] of rows) {
      const sec = names.get(Number(id));
      if (sec === undefined) continue;
      const recent = recentOfPack(data as Uint8Array, asOf, quarters, sec.market, sec.code);
      if (recent.length > 0) out.set(sec.id, recent);
    }
    return out;
  }

  async stockRecentReports(security: StoredSecurity, asOf: string, quarters: number): Promise<FinancialReport[]> {
    // One key lookup, compiled once: `recentReports` of a slice of one stock, without building its query.
    if (!Number.isInteger(quarters) || quarters < 1) throw new Error(`stockRecentReports: quarters must be a positive integer, not ${quarters}`);
    const run = this.ctx.queries.hotArrays('stockReportPack', (p) => this.ctx.db.selectFrom('report_packs').select('data').where('security_id', '=', p.number(0)));
    const [row] = await run([security.id]);
    return row === undefined ? [] : recentOfPack(row[0] as Uint8Array, asOf, quarters, security.market, security.code);
  }

  async ttmSteps(securityId: number): Promise<TtmStep[]> {
    const run = this.ctx.queries.hotArrays('ttmSteps', (p) => this.ctx.db.selectFrom('ttm_steps').select('data').where('security_id', '=', p.number(0)));
    const [row] = await run([securityId]);
    return row === undefined ? [] : decodeSteps(row[0] as Uint8Array);
  }
}
