// The ECB's euro foreign exchange reference rates (https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html):
// the bulk file eurofxref-hist.zip, every TARGET business day since 1999, no key. What it is for:
// converting the figures of US-listed foreign private issuers that give no USD convenience
// translation (src/sources/sec/parse.ts, docs/calculations.md section 9). Read once a Seoul day
// (the ECB publishes around 16:00 CET): a run on the day of the last one asks nothing.

import type { EuroReferenceRate } from '../../domain/model.js';
import { usdSeriesOf, type UsdSeries } from '../../domain/reference-rates.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays } from '../shared/parse.js';
import { zipMembersOfBuffer } from '../shared/zip-stream.js';
import { HIST_MEMBER, parseReferenceRates, SOURCE_NAME } from './parse.js';

export interface EcbConfig extends HttpTuning {
  /** www.ecb.europa.eu */
  baseUrl?: string;
  /** The first day kept on a first run (default 2009-01-01: SEC's XBRL financial data starts in 2009). */
  firstDate?: string;
}

/** Days before the newest stored rate read again on each run (a published rate the ECB corrects is taken again). */
const OVERLAP_DAYS = 14;

/** The cursor: the Seoul day of the last read and the newest rate it found, `2024-10-12/2024-10-11`. */
export function readCursor(cursor: string | null): { readOn: string; latest: string } | null {
  const m = /^(\d{4}-\d{2}-\d{2})\/(\d{4}-\d{2}-\d{2})$/.exec(cursor ?? '');
  return m ? { readOn: m[1] as string, latest: m[2] as string } : null;
}

export class EcbSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter = RateLimiter.perSecond(1);

  constructor(private readonly config: EcbConfig = {}) {
    this.baseUrl = (config.baseUrl ?? 'https://www.ecb.europa.eu').replace(/\/+$/, '');
  }

  /**
   * Configured with the SEC source (its foreign filers are what the rates convert), unless
   * `ECB_RATES=off`; `ECB_BASE_URL` points it at another host (a replica).
   */
  static fromEnv(env: Record<string, string | undefined>): EcbSource | null {
    if (!env['SEC_USER_AGENT']?.trim() || env['ECB_RATES']?.trim().toLowerCase() === 'off') return null;
    return new EcbSource({ baseUrl: env['ECB_BASE_URL'] || undefined });
  }

  get url(): string {
    return `${this.baseUrl}/stats/eurofxref/eurofxref-hist.zip`;
  }

  client(ctx: Pick<SourceContext, 'fetch' | 'signal' | 'log'>): HttpClient {
    return clientForRun(this.name, ctx, this.config, { limiter: this.limiter, headers: { accept: 'application/zip' } });
  }

  /** The whole file's rates on days on or after `from`, and its newest day. */
  async read(http: HttpClient, from: string | null): Promise<{ rates: EuroReferenceRate[]; latest: string | null; unreadable: number }> {
    const url = this.url;
    const zip = await http.getBytes(url);
    let text: string | null = null;
    try {
      for await (const member of zipMembersOfBuffer(zip, { maxMemberBytes: 64 * 1024 ** 2 })) {
        if (member.name === HIST_MEMBER) text = (await member.bytes()).toString('utf8');
      }
    } catch (err) {
      throw http.parseError(`not a ZIP holding ${HIST_MEMBER}: ${(err as Error).message.slice(0, 120)}`, url);
    }
    if (text === null) throw http.parseError(`the ZIP holds no ${HIST_MEMBER}`, url);
    const parsed = parseReferenceRates(text, from);
    if (parsed === null) throw http.parseError(`${HIST_MEMBER} does not start with its header (Date,USD,...)`, url);
    return parsed;
  }

  /**
   * Every currency's USD series from the file, the days up to `through` (a first start's SEC bulk
   * read converts with them before this source's run has stored any).
   */
  async usdSeries(ctx: Pick<SourceContext, 'fetch' | 'signal' | 'log'>, through: string): Promise<Map<string, UsdSeries>> {
    const { rates } = await this.read(this.client(ctx), this.config.firstDate ?? '2009-01-01');
    return usdSeriesOf(rates.filter((r) => r.date <= through));
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const last = readCursor(ctx.cursor);
    if (!ctx.range && last !== null && last.readOn >= ctx.asOf) return { data: {}, cursor: ctx.cursor ?? '' };
    const from = ctx.range?.from ?? (last ? addDays(last.latest, -OVERLAP_DAYS) : (this.config.firstDate ?? '2009-01-01'));
    ctx.progress?.({ phase: 'downloading', note: 'eurofxref-hist.zip' });
    const { rates, latest, unreadable } = await this.read(this.client(ctx), from);
    // No rate dated after the run's day is taken (a day's rate is known from its publication).
    const to = ctx.range?.to ?? ctx.asOf;
    const kept = rates.filter((r) => r.date <= to);
    ctx.log.info('ecb: ingested', { rates: kept.length, from, latest });
    const keptLatest = kept.reduce<string | null>((a, r) => (a === null || r.date > a ? r.date : a), null);
    const newest = [keptLatest, last?.latest ?? null].filter((d): d is string => d !== null).sort().at(-1);
    return {
      data: { referenceRates: kept },
      cursor: newest ? `${ctx.asOf}/${newest}` : (ctx.cursor ?? ''),
      ...(unreadable > 0 ? { skipped: { 'eurofxref-hist.csv row that cannot be read': unreadable } } : {}),
    };
  }
}
