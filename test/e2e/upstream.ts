// A loopback upstream for the end-to-end test on real filings: one HTTP server on 127.0.0.1
// (port 0) that answers every adapter's real paths (SEC EDGAR www and data, Polygon, FSC on
// data.go.kr, OpenDART) with the RECORDED real answers in test/fixtures/real/ (provenance in
// test/fixtures/real/PROVENANCE.md).
//
// Where an adapter asks for something of which no recording exists, the harness CONSTRUCTS a
// minimal answer here, in test code, in the provider's documented format and only from facts
// found in the recordings. Every such answer is marked `constructed` below and in the
// `answered` log; none of them is saved as a fixture. Anything else gets a 404 and is listed in
// `unanswered`, so a test can tell that the service asked for nothing the harness did not know.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loopback, zipOne, type Loopback, type Recorded, type Reply } from '../sources/helpers.js';
import { companyFacts, CONSTRUCTED_FILER } from './constructed-foreign.js';

const REAL = new URL('../fixtures/real/', import.meta.url);

/** A recorded answer, gunzipped, as the provider sent it. */
export function real(path: string): Buffer {
  const raw = readFileSync(new URL(path, REAL));
  return path.endsWith('.gz') ? gunzipSync(raw) : raw;
}

export function realJson<T = unknown>(path: string): T {
  return JSON.parse(real(path).toString('utf8')) as T;
}

/**
 * Recorded SEC companyfacts and submissions by CIK (submissions exist for Apple and Marvell only;
 * `null`: none recorded, answered 404 as SEC answers a CIK it has no submissions for).
 */
const SEC_COMPANIES: Record<number, { facts: string; submissions?: string | null }> = {
  320193: { facts: 'sec/companyfacts_CIK0000320193_AAPL.json.gz', submissions: 'sec/submissions_CIK0000320193_AAPL.json.gz' },
  1318605: { facts: 'sec/companyfacts_CIK0001318605_TSLA.json.gz' },
  1835632: { facts: 'sec/companyfacts_CIK0001835632_MRVL.json.gz', submissions: 'sec/submissions_CIK0001835632_MRVL.json.gz' },
  // TSMC, a 20-F filer (an excerpt of its recorded companyfacts).
  1046179: { facts: 'sec/companyfacts_CIK0001046179_TSM.EXCERPT.json', submissions: null },
};

/** Recorded Polygon grouped-daily answers by date. */
const POLYGON_GROUPED: Record<string, string> = { '2026-09-25': 'polygon/grouped_2026-09-25_excerpt.json.gz' };

/** Recorded FSC getStockPriceInfo answers: the trading day each holds (one row, Samsung Electronics). */
const FSC_DAYS: Record<string, string> = { '20220622': 'fsc/getStockPriceInfo_005930_20220622.json.gz' };

/** Recorded OpenDART full statements (annual reports, consolidated) of Samsung Electronics. */
const DART_CORP = '00126380';
const DART_YEARS = [2019, 2020, 2021, 2022, 2023];
const dartStatementsFile = (corp: string, year: string, reprt: string, fsDiv: string): string =>
  `opendart/fnlttSinglAcntAll_${corp}_${year}_${reprt}_${fsDiv}.json.gz`;
const DART_COMPANY: Record<string, string> = { [DART_CORP]: 'opendart/company_00126380.json.gz' };

interface SecFacts {
  cik: number;
  entityName: string;
  facts: {
    dei?: { EntityCommonStockSharesOutstanding?: { units: { shares: { end: string; val: number; accn: string; form: string; filed: string }[] } } };
    'us-gaap'?: Record<string, { units: Record<string, { start?: string; end: string; form: string }[]> }>;
  };
}

export interface Upstream extends Loopback {
  /** What was answered, with `constructed: true` for the harness's own answers. */
  answered: { path: string; constructed: boolean }[];
  /** Requests the harness could not answer (404). */
  unanswered: string[];
}

const json = (body: unknown): Reply => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });

/** Switches of the harness a test may flip while it runs. */
export interface UpstreamFaults {
  /** company.json answers OpenDART's "no data" (013) for every company, as it does for some real filers. */
  companyJson013?: boolean;
  /**
   * Not a fault: SEC's ticker list also names the CONSTRUCTED EUR 20-F filer of
   * ./constructed-foreign.ts (EURX), whose companyfacts the harness then serves.
   */
  euroFiler?: boolean;
}

export async function startUpstream(faults: UpstreamFaults = {}): Promise<Upstream> {
  const answered: Upstream['answered'] = [];
  const unanswered: string[] = [];
  const cache = new Map<string, Buffer>();
  const recorded = (path: string): Buffer => {
    let b = cache.get(path);
    if (!b) {
      b = real(path);
      cache.set(path, b);
    }
    return b;
  };
  const parsed = new Map<number, SecFacts>();
  const factsOf = (cik: number): SecFacts => {
    let f = parsed.get(cik);
    if (!f) {
      f = JSON.parse(recorded((SEC_COMPANIES[cik] as { facts: string }).facts).toString('utf8')) as SecFacts;
      parsed.set(cik, f);
    }
    return f;
  };

  const route = (req: Recorded): { reply: Reply; constructed: boolean } | null => {
    const p = req.url.pathname;
    const q = req.url.searchParams;

    // --- SEC EDGAR (www.sec.gov and data.sec.gov share the loopback base) ---
    if (p === '/files/company_tickers.json') {
      if (!faults.euroFiler) return { reply: { body: recorded('sec/company_tickers.json.gz') }, constructed: false };
      // The recorded list plus one CONSTRUCTED entry, in its layout ({"0":{"cik_str","ticker","title"},...}).
      const list = JSON.parse(recorded('sec/company_tickers.json.gz').toString('utf8')) as Record<string, unknown>;
      list[String(Object.keys(list).length)] = { cik_str: CONSTRUCTED_FILER.cik, ticker: CONSTRUCTED_FILER.ticker, title: CONSTRUCTED_FILER.title };
      return { reply: json(list), constructed: true };
    }
    let m = /^\/api\/xbrl\/companyfacts\/CIK(\d{10})\.json$/.exec(p);
    if (m && faults.euroFiler && Number(m[1]) === CONSTRUCTED_FILER.cik) return { reply: json(companyFacts('EUR', '20-F')), constructed: true };
    if (m) {
      const c = SEC_COMPANIES[Number(m[1])];
      // SEC answers 404 for a company without XBRL financials; here: without a recording.
      return c ? { reply: { body: recorded(c.facts) }, constructed: false } : null;
    }
    m = /^\/submissions\/CIK(\d{10})\.json$/.exec(p);
    // The constructed filer has no submissions: answered as SEC answers a CIK it holds none for.
    if (m && faults.euroFiler && Number(m[1]) === CONSTRUCTED_FILER.cik) return { reply: { status: 404, body: 'Not Found' }, constructed: true };
    if (m) {
      const cik = Number(m[1]);
      const c = SEC_COMPANIES[cik];
      if (!c) return null;
      if (c.submissions) return { reply: { body: recorded(c.submissions) }, constructed: false };
      if (c.submissions === null) return { reply: { status: 404, body: 'Not Found' }, constructed: true };
      // CONSTRUCTED (no recording of Tesla's submissions): the documented submissions shape with
      // only what the recordings state: the CIK and name (companyfacts `cik`, `entityName`), the
      // ticker (company_tickers.json) and the fiscal year end, December 31, the `end` of every
      // 10-K in the companyfacts (2019-12-31, 2020-12-31, 2021-12-31). No exchange and no SIC
      // description are recorded, so none is given.
      const facts = factsOf(cik);
      return {
        reply: json({ cik: String(cik), entityType: 'operating', name: facts.entityName, tickers: ['TSLA'], exchanges: [], sic: '', sicDescription: '', fiscalYearEnd: '1231', filings: { recent: {}, files: [] } }),
        constructed: true,
      };
    }
    m = /^\/api\/xbrl\/frames\/(dei\/EntityCommonStockSharesOutstanding|us-gaap\/CommonStockSharesOutstanding|us-gaap\/WeightedAverageNumberOfSharesOutstandingBasic)\/shares\/CY(\d{4})Q([1-4])(I?)\.json$/.exec(p);
    if (m && (m[4] === 'I') === (m[1] !== 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic')) {
      // CONSTRUCTED (no frames recording): the frames API's documented shape, one row per
      // recorded company holding its fact of the concept with the latest `end` on or before the
      // quarter's last day (the weighted average: of a quarter's duration), exactly as recorded in
      // its companyfacts (accn, end, val). The real frame holds the fact nearest the quarter end;
      // the recordings stop earlier (Apple: the Q1 FY2026 10-Q, cover date 2026-01-16), so the
      // latest recorded count stands in for it. The Polygon source asks the cover count first,
      // then the us-gaap counts for a company the cover frames do not hold.
      const [taxonomy, tag] = (m[1] as string).split('/') as ['dei' | 'us-gaap', string];
      const year = Number(m[2]);
      const quarterEnd = `${year}-${['03-31', '06-30', '09-30', '12-31'][Number(m[3]) - 1]}`;
      const duration = m[4] !== 'I';
      const data: { accn: string; cik: number; entityName: string; end: string; val: number }[] = [];
      for (const cik of Object.keys(SEC_COMPANIES).map(Number)) {
        const facts = factsOf(cik);
        const concepts = facts.facts[taxonomy] as Record<string, { units: Record<string, unknown[]> } | undefined> | undefined;
        const all = (concepts?.[tag]?.units['shares'] ?? []) as { accn: string; end: string; val: number; start?: string }[];
        const usable = all.filter((f) => f.end <= quarterEnd && (!duration || (f.start !== undefined && (Date.parse(f.end) - Date.parse(f.start)) / 86_400_000 < 100)));
        const latest = usable.reduce<(typeof usable)[number] | undefined>((a, f) => (!a || f.end > a.end ? f : a), undefined);
        if (latest) data.push({ accn: latest.accn, cik, entityName: facts.entityName, end: latest.end, val: latest.val });
      }
      return {
        reply: json({ taxonomy, tag, ccp: `CY${m[2]}Q${m[3]}${m[4]}`, uom: 'shares', label: tag, pts: data.length, data }),
        constructed: true,
      };
    }
    if (p.startsWith('/Archives/edgar/daily-index/')) {
      // No daily index is recorded: answered as EDGAR answers a day without an index file.
      return { reply: { status: 404, body: 'Not Found' }, constructed: true };
    }

    // --- ECB euro reference rates ---
    if (p === '/stats/eurofxref/eurofxref-hist.zip') {
      // The recorded excerpt of eurofxref-hist.csv (2022-12-01 to 2024-10-11, unchanged) in a ZIP
      // made here: the ECB's ZIP itself is not recorded, the CSV member is.
      const csv = recorded('ecb/eurofxref-hist_2022-12-01_2024-10-11.csv.gz').toString('utf8');
      return { reply: { headers: { 'content-type': 'application/zip' }, body: zipOne('eurofxref-hist.csv', csv) }, constructed: true };
    }

    // --- Polygon grouped daily ---
    m = /^\/v2\/aggs\/grouped\/locale\/us\/market\/stocks\/(\d{4}-\d{2}-\d{2})$/.exec(p);
    if (m) {
      const file = POLYGON_GROUPED[m[1] as string];
      return file ? { reply: { body: recorded(file) }, constructed: false } : null;
    }

    // --- FSC stock prices (data.go.kr) ---
    if (p.endsWith('/getStockPriceInfo')) {
      const begin = q.get('beginBasDt') ?? '';
      const end = q.get('endBasDt') ?? ''; // exclusive
      const day = Object.keys(FSC_DAYS).find((d) => d >= begin && d < end);
      if (day && (q.get('pageNo') ?? '1') === '1') return { reply: { body: recorded(FSC_DAYS[day] as string) }, constructed: false };
      // CONSTRUCTED: the documented empty result (`"items": ""`) for a window holding no
      // recorded trading day.
      return {
        reply: json({ response: { header: { resultCode: '00', resultMsg: 'NORMAL SERVICE.' }, body: { numOfRows: Number(q.get('numOfRows') ?? 10), pageNo: Number(q.get('pageNo') ?? 1), totalCount: 0, items: '' } } }),
        constructed: true,
      };
    }

    // --- OpenDART ---
    if (p === '/api/corpCode.xml') {
      // CONSTRUCTED (no corpCode.xml recording): the documented ZIP holding CORPCODE.xml, with one
      // listed company, Samsung Electronics, from its recorded company.json (corp_code,
      // stock_code, corp_name = stock_name, corp_eng_name). modify_date is not recorded: empty.
      const company = JSON.parse(recorded(DART_COMPANY[DART_CORP] as string).toString('utf8')) as Record<string, string>;
      const xml =
        '<?xml version="1.0" encoding="UTF-8"?>\n<result>\n' +
        `<list>\n<corp_code>${company['corp_code']}</corp_code>\n<corp_name>${company['stock_name']}</corp_name>\n` +
        `<corp_eng_name>${company['corp_name_eng']}</corp_eng_name>\n<stock_code>${company['stock_code']}</stock_code>\n<modify_date></modify_date>\n</list>\n</result>\n`;
      return { reply: { headers: { 'content-type': 'application/x-msdownload' }, body: zipOne('CORPCODE.xml', xml) }, constructed: true };
    }
    if (p === '/api/list.json') {
      // CONSTRUCTED (no recording names these filings): list.json rows for Samsung's annual
      // reports (사업보고서) of which the full statements are recorded, each with the receipt
      // number its recorded statements carry (rcept_no; rcept_dt = its first eight digits),
      // kept when rcept_dt lies in [bgn_de, end_de]. Names from the recorded company.json.
      const company = JSON.parse(recorded(DART_COMPANY[DART_CORP] as string).toString('utf8')) as Record<string, string>;
      const from = q.get('bgn_de') ?? '';
      const to = q.get('end_de') ?? '99999999';
      const rows = DART_YEARS.map((year) => {
        const statements = JSON.parse(recorded(dartStatementsFile(DART_CORP, String(year), '11011', 'CFS')).toString('utf8')) as { list: { rcept_no: string }[] };
        const rceptNo = (statements.list[0] as { rcept_no: string }).rcept_no;
        return {
          corp_code: DART_CORP,
          corp_name: company['stock_name'],
          stock_code: company['stock_code'],
          corp_cls: company['corp_cls'],
          report_nm: `사업보고서 (${year}.12)`,
          rcept_no: rceptNo,
          flr_nm: company['stock_name'],
          rcept_dt: rceptNo.slice(0, 8),
          rm: '',
        };
      }).filter((r) => r.rcept_dt >= from && r.rcept_dt <= to);
      if (rows.length === 0) return { reply: json({ status: '013', message: '조회된 데이타가 없습니다.' }), constructed: true };
      return {
        reply: json({ status: '000', message: '정상', page_no: 1, page_count: Number(q.get('page_count') ?? 10), total_count: rows.length, total_page: 1, list: rows }),
        constructed: true,
      };
    }
    if (p === '/api/fnlttSinglAcntAll.json') {
      const file = dartStatementsFile(q.get('corp_code') ?? '', q.get('bsns_year') ?? '', q.get('reprt_code') ?? '', q.get('fs_div') ?? '');
      const corp = q.get('corp_code');
      const year = Number(q.get('bsns_year'));
      if (corp === DART_CORP && DART_YEARS.includes(year) && q.get('reprt_code') === '11011' && q.get('fs_div') === 'CFS') {
        return { reply: { body: recorded(file) }, constructed: false };
      }
      // CONSTRUCTED: OpenDART's documented "no data" status for anything not recorded.
      return { reply: json({ status: '013', message: '조회된 데이타가 없습니다.' }), constructed: true };
    }
    if (p === '/api/alotMatter.json') {
      // CONSTRUCTED: no dividend section of these annual reports is recorded; "no data".
      return { reply: json({ status: '013', message: '조회된 데이타가 없습니다.' }), constructed: true };
    }
    if (p === '/api/company.json') {
      const file = DART_COMPANY[q.get('corp_code') ?? ''];
      if (file && !faults.companyJson013) return { reply: { body: recorded(file) }, constructed: false };
      return { reply: json({ status: '013', message: '조회된 데이타가 없습니다.' }), constructed: true };
    }
    return null;
  };

  const server = await loopback((req) => {
    const hit = route(req);
    if (hit === null) {
      unanswered.push(req.url.pathname + req.url.search.replace(/(crtfc_key|serviceKey|apiKey)=[^&]*/g, '$1=***'));
      return { status: 404, body: 'no recording' };
    }
    answered.push({ path: req.url.pathname, constructed: hit.constructed });
    return hit.reply;
  });
  return Object.assign(server, { answered, unanswered });
}
