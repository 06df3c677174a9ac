// OpenDART adapter: finds periodic reports filed since the last run (list.json, pblntf_ty=A),
// keeps listed companies (corpCode.xml), and fetches each report's full statements
// (fnlttSinglAcntAll.json), consolidated first and separate as the fallback.

import type { FinancialReport } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate } from '../shared/parse.js';
import {
  DART_STATUS,
  parseCorpCodeXml,
  parseDartEnvelope,
  parseFinancialStatements,
  parsePeriodicFiling,
  SOURCE_NAME,
  type CorpCode,
  type DartEnvelope,
  type PeriodicFiling,
} from './parse.js';
import { readFirstZipEntry } from './zip.js';

export interface OpenDartConfig extends HttpTuning {
  apiKey: string;
  baseUrl?: string;
  /** OpenDART allows 20,000 calls a day per key and answers status 020 past it; we also pace calls. */
  requestsPerSecond?: number;
  /** How far back the first run looks (list.json searches at most three months without corp_code). */
  firstRunDays?: number;
}

export class OpenDartSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;

  constructor(private readonly config: OpenDartConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://opendart.fss.or.kr').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 5);
  }

  static fromEnv(env: Record<string, string | undefined>): OpenDartSource | null {
    const apiKey = env['DART_API_KEY']?.trim();
    if (!apiKey) return null;
    return new OpenDartSource({ apiKey, baseUrl: env['DART_BASE_URL'] || undefined });
  }

  private client(ctx: SourceContext): HttpClient {
    return clientForRun(this.name, ctx, this.config, { limiter: this.limiter, secrets: [this.config.apiKey] });
  }

  private url(path: string, params: Record<string, string>): string {
    const q = new URLSearchParams({ crtfc_key: this.config.apiKey, ...params });
    return `${this.baseUrl}/api/${path}?${q.toString()}`;
  }

  /** Listed companies from corpCode.xml, keyed by corp_code. */
  async listedCompanies(http: HttpClient): Promise<Map<string, CorpCode>> {
    const url = this.url('corpCode.xml', {});
    const bytes = await http.getBytes(url);
    let xml: string;
    try {
      xml = new TextDecoder('utf-8').decode(readFirstZipEntry(bytes).data);
    } catch (err) {
      // An error answer is a small JSON/XML status body instead of a ZIP.
      const text = new TextDecoder().decode(bytes.slice(0, 300));
      throw http.parseError(`corpCode.xml is not a ZIP (${err instanceof Error ? err.message : String(err)}): ${text}`, url);
    }
    return new Map(parseCorpCodeXml(xml).map((c) => [c.corpCode, c]));
  }

  private async envelope(http: HttpClient, url: string): Promise<DartEnvelope> {
    const env = parseDartEnvelope(await http.getJson(url));
    if (env === null) throw http.parseError('no status field', url);
    if (env.status === DART_STATUS.RATE_LIMIT) throw http.upstreamError(`status 020 request limit exceeded: ${env.message}`, url);
    if (env.status !== DART_STATUS.OK && env.status !== DART_STATUS.NO_DATA) {
      throw http.upstreamError(`status ${env.status}: ${env.message}`, url);
    }
    return env;
  }

  /** Periodic reports (사업/반기/분기보고서) received between two dates, all pages. */
  async periodicFilings(http: HttpClient, from: string, to: string): Promise<PeriodicFiling[]> {
    const out: PeriodicFiling[] = [];
    for (let page = 1; ; page++) {
      const url = this.url('list.json', {
        bgn_de: compactDate(from),
        end_de: compactDate(to),
        pblntf_ty: 'A',
        page_no: String(page),
        page_count: '100',
      });
      const env = await this.envelope(http, url);
      for (const row of env.list) {
        const filing = parsePeriodicFiling(row);
        if (filing) out.push(filing);
      }
      if (env.status === DART_STATUS.NO_DATA || page >= env.totalPage) break;
    }
    return out;
  }

  /** Full statements for one filing: CFS, then OFS when CFS has no data (status 013 / empty list). */
  async statements(http: HttpClient, filing: PeriodicFiling, code: string): Promise<FinancialReport | null> {
    for (const fsDiv of ['CFS', 'OFS'] as const) {
      const url = this.url('fnlttSinglAcntAll.json', {
        corp_code: filing.corpCode,
        bsns_year: String(filing.fiscalYear),
        reprt_code: filing.reprtCode,
        fs_div: fsDiv,
      });
      const env = await this.envelope(http, url);
      const report = parseFinancialStatements(env, {
        code,
        fiscalYear: filing.fiscalYear,
        fiscalQuarter: filing.fiscalQuarter,
        periodEnd: filing.periodEnd,
        fsDiv,
      });
      if (report) return report;
    }
    return null;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = this.client(ctx);
    const to = ctx.range?.to ?? ctx.asOf;
    // Re-read the cursor day itself: filings received late that day were not yet listed.
    const from = ctx.range?.from ?? ctx.cursor ?? addDays(ctx.asOf, -(this.config.firstRunDays ?? 90));
    const listed = await this.listedCompanies(http);
    const filings = (await this.periodicFilings(http, from, to)).filter((f) => listed.has(f.corpCode));
    // One fetch per company and period: the API returns the latest filing's figures.
    const unique = new Map<string, PeriodicFiling>();
    for (const f of filings) unique.set(`${f.corpCode}:${f.fiscalYear}:${f.reprtCode}`, f);
    const reports: FinancialReport[] = [];
    for (const filing of unique.values()) {
      const company = listed.get(filing.corpCode);
      if (!company) continue;
      const report = await this.statements(http, filing, company.stockCode);
      if (report) reports.push(report);
      else ctx.log.warn('opendart: no statements for filing', { corpCode: filing.corpCode, rceptNo: filing.rceptNo });
    }
    ctx.log.info('opendart: ingested', { filings: filings.length, reports: reports.length, from, to });
    return { data: { reports }, cursor: to };
  }
}
