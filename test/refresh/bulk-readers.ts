// In-test bulk readers for the importer's and the first start's tests, over REAL recorded SEC
// companyfacts answers (test/fixtures/real/sec, PROVENANCE.md) packed into ZIP archives built
// here (the container constructed, the members real, as SEC's companyfacts.zip holds exactly the
// API's answers: ../shared/realdata/bulk/README.md), streamed member by member through the shared
// zipMembers, and Polygon's recorded grouped-daily answer.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { zipOf } from '../sources/helpers.js';
import type { BulkBatch, BulkContext, BulkReader } from '../../src/sources/bulk.js';
import { parseGrouped, toDailyBars } from '../../src/sources/polygon/parse.js';
import { parseCompanyFacts, usSecurity } from '../../src/sources/sec/parse.js';
import { zipMembers, type ZipLimits } from '../../src/sources/shared/zip-stream.js';

const REAL = new URL('../fixtures/real/', import.meta.url);
export const real = (path: string): Buffer => gunzipSync(readFileSync(new URL(path, REAL)));

/** Tickers of the recorded companies by CIK, as company_tickers.json (recorded beside them) lists them. */
export const TICKERS: Record<number, string> = { 320193: 'AAPL', 1835632: 'MRVL', 1318605: 'TSLA' };
const FACTS: Record<string, string> = {
  AAPL: 'sec/companyfacts_CIK0000320193_AAPL.json.gz',
  MRVL: 'sec/companyfacts_CIK0001835632_MRVL.json.gz',
  TSLA: 'sec/companyfacts_CIK0001318605_TSLA.json.gz',
};
/** The recorded companyfacts sizes (bytes, gunzipped): MRVL 1,277,340; TSLA 2,999,120; AAPL 3,709,629. */
export const reportsOf = (ticker: string): number => parseCompanyFacts(JSON.parse(real(FACTS[ticker] as string).toString('utf8')), ticker)?.reports.length ?? -1;

/** Writes a companyfacts.zip-like archive of the given real members (CIK##########.json) plus extra members. */
export function archive(dir: string, name: string, tickers: string[], extra: Record<string, string> = {}): string {
  const members: Record<string, Uint8Array> = {};
  for (const t of tickers) {
    const cik = Object.entries(TICKERS).find(([, v]) => v === t)?.[0] as string;
    members[`CIK${cik.padStart(10, '0')}.json`] = real(FACTS[t] as string);
  }
  for (const [n, text] of Object.entries(extra)) members[n] = Buffer.from(text, 'utf8');
  const path = join(dir, name);
  writeFileSync(path, zipOf(Object.entries(members).map(([name, content]) => ({ name, content }))));
  return path;
}

/**
 * A minimal companyfacts reader for the test: one batch per member (the company placed with its
 * filings), members that are not CIK##########.json counted as skipped; then, optionally, one
 * batch of the recorded Polygon grouped-daily bars (every common-stock ticker given 1,000,000
 * shares: a test value), of which only placed companies' bars can be stored.
 */
export class FactsZipReader implements BulkReader {
  readonly batchesRead: number[] = [];
  constructor(
    readonly source: string,
    private readonly path: string,
    private readonly options: { limits?: ZipLimits; bars?: boolean; onBatch?: () => void } = {},
  ) {}

  async *read(ctx: BulkContext): AsyncIterable<BulkBatch> {
    ctx.progress({ phase: 'reading', unit: 'members', done: 0, total: null });
    let done = 0;
    for await (const member of zipMembers(this.path, this.options.limits)) {
      const m = /^CIK(\d{10})\.json$/.exec(member.name);
      const ticker = m ? TICKERS[Number(m[1])] : undefined;
      if (!ticker) {
        ctx.skip('member that is not a company file', member.name);
        continue;
      }
      const parsed = parseCompanyFacts(JSON.parse((await member.bytes()).toString('utf8')), ticker);
      if (!parsed) {
        ctx.skip('member without facts', member.name);
        continue;
      }
      this.options.onBatch?.();
      yield { data: { securities: [usSecurity(ticker, parsed.entityName, 'NASDAQ', 'Unclassified', parsed.fiscalYearEndMonth ?? 12)], reports: parsed.reports } };
      ctx.progress({ done: ++done });
    }
    if (this.options.bars) {
      const grouped = parseGrouped(JSON.parse(real('polygon/grouped_2026-09-25_excerpt.json.gz').toString('utf8')));
      const shares = new Map(grouped?.bars.map((b) => [b.ticker.replace(/-/g, '.'), 1_000_000]) ?? []);
      const { bars, skipped } = toDailyBars('2026-09-25', grouped?.bars ?? [], shares);
      for (const [reason, n] of Object.entries(skipped)) ctx.skip(reason, undefined, n);
      this.options.onBatch?.();
      yield { data: { bars } };
    }
  }
}

