// USD/KRW daily rate from the Bank of Korea ECOS API. The key sits in the URL PATH
// (/api/StatisticSearch/{KEY}/json/kr/{start}/{end}/731Y001/D/{from}/{to}/0000001), so
// redaction by value matters here. Rows are paged by the start/end row numbers. ECOS publishes
// no call allowance; the meter counts calls for the progress report. The first run reads the
// series from 1990 (about ten pages); the scores need only the rate in force at `asOf`.

import type { FxRate } from '../../domain/model.js';
import { clientForRun, type HttpTuning, RateLimiter } from '../http.js';
import { CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate } from '../shared/parse.js';
import { parseStatisticSearch, SOURCE_NAME } from './parse.js';

export interface EcosConfig extends HttpTuning {
  apiKey: string;
  baseUrl?: string;
  requestsPerSecond?: number;
  pageSize?: number;
  firstDate?: string;
}

export class EcosSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  readonly meter = new CallMeter(SOURCE_NAME, null);

  constructor(private readonly config: EcosConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://ecos.bok.or.kr').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 2);
  }

  static fromEnv(env: Record<string, string | undefined>): EcosSource | null {
    const apiKey = env['ECOS_API_KEY']?.trim();
    if (!apiKey) return null;
    return new EcosSource({ apiKey, baseUrl: env['ECOS_BASE_URL'] || undefined });
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets: [this.config.apiKey] });
    this.meter.restore(ctx.calls);
    const from = ctx.range?.from ?? (ctx.cursor ? addDays(ctx.cursor, 1) : (this.config.firstDate ?? '1990-01-01'));
    const to = ctx.range?.to ?? ctx.asOf;
    const fx: FxRate[] = [];
    const pageSize = this.config.pageSize ?? 1000;
    // The number of pages is known from the first answer's list_total_count.
    let plan: CallPlan | null = null;
    for (let start = 1; from <= to; start += pageSize) {
      const url =
        `${this.baseUrl}/api/StatisticSearch/${encodeURIComponent(this.config.apiKey)}/json/kr/${start}/${start + pageSize - 1}` +
        `/731Y001/D/${compactDate(from)}/${compactDate(to)}/0000001`;
      const answer = parseStatisticSearch(await http.getJson(url));
      if (answer === null) throw http.parseError('neither StatisticSearch nor RESULT', url);
      if (answer.kind === 'result') {
        // INFO-200: no data in the range (weekend, holiday, not yet published).
        if (answer.code === 'INFO-200') break;
        throw http.upstreamError(`${answer.code} ${answer.message}`, url);
      }
      fx.push(...answer.rates);
      if (plan === null) {
        plan = new CallPlan(ctx.progress, this.meter, { unit: 'pages', total: Math.max(1, Math.ceil(answer.total / pageSize)), callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs });
        plan.start(`USD/KRW from ${from}`);
      }
      plan.step();
      if (answer.rates.length === 0 || start + pageSize - 1 >= answer.total) break;
    }
    plan?.finish();
    const latest = fx.map((r) => r.date).sort().at(-1);
    ctx.log.info('ecos: ingested', { rates: fx.length, from, to });
    return { data: { fx }, cursor: latest ?? ctx.cursor ?? addDays(from, -1), calls: this.meter.state() };
  }
}
