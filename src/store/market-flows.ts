// Market data, the investor flows: each stock's daily foreign and institutional net buying. One
// stock's flows, and the recompute's read of each stock's flows over the window of its last bars.

import { sql, type Transaction } from 'kysely';
import type { FlowDay, InvestorFlow, Market } from '../domain/model.js';
import { SOURCE_TERMS } from '../domain/source-terms.js';
import type { UniverseSlice } from './market-types.js';
import type { BulkReads, MarketContext } from './market-reads.js';
import { upsert } from './queries.js';
import type { DB } from './schema.js';

/**
 * A flow row's source as a small integer for the recompute's bulk read (whose columns are
 * numbers, src/store/series-readers.ts): the position of the name in the source-terms table
 * (every adapter's name is there), 0 for a name it does not hold, read back as `unlisted source`.
 */
const FLOW_SOURCE_NAMES = SOURCE_TERMS.map((t) => t.source);
const FLOW_SOURCE_CODE = sql<number>`case flows.source ${sql.join(
  FLOW_SOURCE_NAMES.map((name, i) => sql`when ${sql.lit(name)} then ${sql.lit(i + 1)}`),
  sql` `,
)} else 0 end`;
const flowSourceOf = (code: number): string => FLOW_SOURCE_NAMES[code - 1] ?? 'unlisted source';

const FLOW_COLUMNS = ['securities.market', 'securities.code', 'flows.date', 'flows.foreign_net', 'flows.institution_net', 'flows.source'] as const;

export class FlowsData {
  constructor(
    private readonly ctx: MarketContext,
    private readonly bulk: BulkReads,
  ) {}

  /** Upserts the flows (of known securities), in the write's transaction. */
  async write(trx: Transaction<DB>, flows: readonly InvestorFlow[], idOf: (row: InvestorFlow) => number): Promise<void> {
    await upsert(
      this.ctx.dialect.rowRunner,
      trx,
      'flows',
      ['security_id', 'date'],
      flows.map((f) => ({
        security_id: idOf(f),
        date: f.date,
        foreign_net: f.foreignNet,
        institution_net: f.institutionNet,
        source: f.source,
      })),
    );
  }

  async flowsOfLastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, FlowDay[]>> {
    // As lastBars (./market-bars.ts): one key range per stock.
    return this.bulk.groupedRows(
      this.bulk
        .withWindowStarts(from, asOf, count, slice)
        .selectFrom('starts')
        .crossJoin('flows')
        .whereRef('flows.security_id', '=', 'starts.security_id')
        .whereRef('flows.date', '>=', 'starts.start')
        .where('flows.date', '<=', asOf)
        .select(['flows.security_id', 'flows.date', 'flows.foreign_net', 'flows.institution_net', FLOW_SOURCE_CODE.as('source_code')])
        .orderBy('starts.security_id')
        .orderBy('flows.date'),
      ['int', 'day', 'float', 'float', 'int'],
      (at, date) => ({ date: date(1), foreignNet: at(2), institutionNet: at(3), source: flowSourceOf(at(4)) }),
    );
  }

  async stockFlows(securityId: number, from: string, through: string): Promise<FlowDay[]> {
    // One stock's rows of `flowsOfLastBars` (a range of the (security, date) key), by a statement compiled once.
    const run = this.ctx.queries.hotArrays('stockFlows', (p) =>
      this.ctx.db
        .selectFrom('flows')
        .select(['flows.date', 'flows.foreign_net', 'flows.institution_net', FLOW_SOURCE_CODE.as('source_code')])
        .where('flows.security_id', '=', p.number(0))
        .where('flows.date', '>=', p.text(1))
        .where('flows.date', '<=', p.text(2))
        .orderBy('flows.date'),
    );
    return (await run([securityId, from, through])).map((r) => ({ date: r[0] as string, foreignNet: Number(r[1]), institutionNet: Number(r[2]), source: flowSourceOf(Number(r[3])) }));
  }

  async flows(securityId: number): Promise<InvestorFlow[]> {
    const rows = await this.ctx.queries.arrays(
      this.ctx.db
        .selectFrom('flows')
        .innerJoin('securities', 'securities.id', 'flows.security_id')
        .select(FLOW_COLUMNS)
        .where('flows.security_id', '=', securityId)
        .orderBy('flows.date'),
    );
    return rows.map(toFlow);
  }
}

// Reads an array in the order of FLOW_COLUMNS. Number(): PostgreSQL's driver may hand back
// numeric columns as strings.
function toFlow(r: unknown[]): InvestorFlow {
  return {
    market: r[0] as Market,
    code: r[1] as string,
    date: r[2] as string,
    foreignNet: Number(r[3]),
    institutionNet: Number(r[4]),
    source: r[5] as string,
  };
}
