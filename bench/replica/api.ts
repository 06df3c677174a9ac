// The replica's API answers, per upstream, at the universe's scale. Where a recording exists the
// answer is that recording re-keyed to the copy (ids, names and dates rewritten, amounts kept);
// where none exists (ECOS, Korea Customs, KRX investor flows, SEC frames and daily indexes) the
// answer is CONSTRUCTED in the provider's documented format, as test/e2e/upstream.ts does at
// small scale, and said so in the comment above it.

import { zipOne } from '../../test/sources/helpers.js';
import { epochDay, isoOfDay, isWeekday, priceOn, real, realJson, unit, type KrCompany, type Universe, type UsCompany } from './universe.js';

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Uint8Array;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const json = (body: unknown, status = 200): Answer => ({ status, headers: JSON_TYPE, body: JSON.stringify(body) });
const xml = (body: string): Answer => ({ headers: { 'content-type': 'text/xml; charset=utf-8' }, body });
const compact = (iso: string): string => iso.replace(/-/g, '');
const isoOf = (compactDate: string): string => `${compactDate.slice(0, 4)}-${compactDate.slice(4, 6)}-${compactDate.slice(6, 8)}`;

// ---------------------------------------------------------------------------------------
// OpenDART

/** A periodic report of a copy: the calendar of December filers (deadlines 45 / 90 days). */
export interface Filing {
  company: KrCompany;
  year: number;
  reprtCode: '11013' | '11012' | '11014' | '11011';
  reportName: string;
  /** YYYYMMDD */
  rceptDt: string;
  rceptNo: string;
}

const PERIODS = [
  { reprtCode: '11013', name: (y: number) => `분기보고서 (${y}.03)`, due: (y: number) => `${y}-05-15` },
  { reprtCode: '11012', name: (y: number) => `반기보고서 (${y}.06)`, due: (y: number) => `${y}-08-14` },
  { reprtCode: '11014', name: (y: number) => `분기보고서 (${y}.09)`, due: (y: number) => `${y}-11-14` },
  { reprtCode: '11011', name: (y: number) => `사업보고서 (${y}.12)`, due: (y: number) => `${y + 1}-03-31` },
] as const;

/** First fiscal year with filings in the replica: 2015 annual, then every quarter from 2016 (as DART's bulk files). */
export const FIRST_YEAR = 2015;

/** Every filing of the universe received on or before `through` (ISO), by receipt date then company. */
export function filingsThrough(universe: Universe, through: string): Filing[] {
  const out: Filing[] = [];
  const lastYear = Number(through.slice(0, 4));
  for (let y = FIRST_YEAR; y <= lastYear; y++) {
    for (const p of PERIODS) {
      if (y === FIRST_YEAR && p.reprtCode !== '11011') continue;
      const dueDay = epochDay(p.due(y));
      for (const c of universe.kr) {
        // Filers spread over the last ten days before the deadline.
        const day = dueDay - (c.index % 10);
        const rceptDt = compact(isoOfDay(day));
        if (isoOfDay(day) > through) continue;
        out.push({ company: c, year: y, reprtCode: p.reprtCode, reportName: p.name(y), rceptDt, rceptNo: `${rceptDt}${String(800_000 + c.index).padStart(6, '0')}` });
      }
    }
  }
  return out.sort((a, b) => (a.rceptNo < b.rceptNo ? -1 : a.rceptNo > b.rceptNo ? 1 : 0));
}

interface DartStatementRow {
  [key: string]: string;
}


export class DartApi {
  private readonly statements = new Map<number, DartStatementRow[]>();
  private corpCodeZip: Uint8Array | null = null;
  private filingsCache: { through: string; filings: Filing[]; byKey: Map<string, Filing> } | null = null;

  constructor(
    private readonly universe: Universe,
    private readonly today: () => string,
  ) {}

  filings(): { filings: Filing[]; byKey: Map<string, Filing> } {
    const through = this.today();
    if (this.filingsCache?.through !== through) {
      const filings = filingsThrough(this.universe, through);
      this.filingsCache = { through, filings, byKey: new Map(filings.map((f) => [`${f.company.corpCode}:${f.year}:${f.reprtCode}`, f])) };
    }
    return this.filingsCache;
  }

  private recorded(year: number): DartStatementRow[] {
    const y = Math.min(2023, Math.max(2019, year));
    let rows = this.statements.get(y);
    if (!rows) {
      rows = realJson<{ list: DartStatementRow[] }>(`opendart/fnlttSinglAcntAll_00126380_${y}_11011_CFS.json.gz`).list;
      this.statements.set(y, rows);
    }
    return rows;
  }

  /** corpCode.xml: every listed copy plus unlisted filers (no stock code), as the real file holds ~100,000 filers. */
  corpCode(): Answer {
    if (!this.corpCodeZip) {
      const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<result>\n'];
      for (const c of this.universe.kr) {
        parts.push(`<list>\n<corp_code>${c.corpCode}</corp_code>\n<corp_name>${c.name}</corp_name>\n<corp_eng_name>${c.nameEn}</corp_eng_name>\n<stock_code>${c.stockCode}</stock_code>\n<modify_date>20260101</modify_date>\n</list>\n`);
      }
      for (let i = 0; i < this.universe.krUnlisted; i++) {
        parts.push(`<list>\n<corp_code>8${String(i).padStart(7, '0')}</corp_code>\n<corp_name>비상장 복제${i}</corp_name>\n<corp_eng_name>Unlisted replica ${i}</corp_eng_name>\n<stock_code> </stock_code>\n<modify_date>20170630</modify_date>\n</list>\n`);
      }
      parts.push('</result>\n');
      this.corpCodeZip = zipOne('CORPCODE.xml', parts.join(''));
    }
    return { headers: { 'content-type': 'application/x-msdownload' }, body: this.corpCodeZip };
  }

  list(q: URLSearchParams): Answer {
    const from = q.get('bgn_de') ?? '00000000';
    const to = q.get('end_de') ?? '99999999';
    const pageNo = Math.max(1, Number(q.get('page_no') ?? 1));
    const pageCount = Math.min(100, Math.max(1, Number(q.get('page_count') ?? 10)));
    const corp = q.get('corp_code');
    const rows = this.filings().filings.filter((f) => f.rceptDt >= from && f.rceptDt <= to && (corp === null || f.company.corpCode === corp));
    if (rows.length === 0) return json({ status: '013', message: '조회된 데이타가 없습니다.' });
    const page = rows.slice((pageNo - 1) * pageCount, pageNo * pageCount);
    return json({
      status: '000',
      message: '정상',
      page_no: pageNo,
      page_count: pageCount,
      total_count: rows.length,
      total_page: Math.ceil(rows.length / pageCount),
      list: page.map((f) => ({
        corp_cls: f.company.corpCls,
        corp_name: f.company.name,
        corp_code: f.company.corpCode,
        stock_code: f.company.stockCode,
        report_nm: f.reportName,
        rcept_no: f.rceptNo,
        flr_nm: f.company.name,
        rcept_dt: f.rceptDt,
        rm: f.company.corpCls === 'Y' ? '유' : '코',
      })),
    });
  }

  /**
   * fnlttSinglAcntAll.json of a copy: Samsung Electronics' recorded annual statements of the
   * nearest recorded year (2019-2023), re-keyed to the copy's corp_code, year, report and
   * receipt number. Quarterly reports are DERIVED from them, since only annual full statements
   * are recorded: income and cash-flow amounts are the year's times q/4 year to date (the
   * three-month figure a quarter of the year, in `thstrm_amount`; the year to date in
   * `thstrm_add_amount` for the half and Q3), balance amounts as recorded; a year outside
   * 2019-2023 scales its nearest recorded year by 6 % a year. Copies marked separate-only answer
   * 013 for CFS, as such filers do.
   */
  statementsOf(q: URLSearchParams): Answer {
    const noData = json({ status: '013', message: '조회된 데이타가 없습니다.' });
    const corp = this.universe.krByCorp.get(q.get('corp_code') ?? '');
    const year = Number(q.get('bsns_year'));
    const filing = corp ? this.filings().byKey.get(`${corp.corpCode}:${year}:${q.get('reprt_code') ?? ''}`) : undefined;
    if (!corp || !filing) return noData;
    const fsDiv = q.get('fs_div');
    if (fsDiv !== 'CFS' && fsDiv !== 'OFS') return json({ status: '100', message: '필드의 부적절한 값입니다.' });
    if (fsDiv === 'CFS' && corp.separateOnly) return noData;
    const quarter = { '11013': 1, '11012': 2, '11014': 3, '11011': 4 }[filing.reprtCode];
    const recordedYear = Math.min(2023, Math.max(2019, year));
    const growth = 1.06 ** (year - recordedYear);
    const scaled = (amount: string | undefined, share: number): string | undefined => {
      if (amount === undefined || amount.trim() === '' || amount === '-') return amount;
      const n = Number(amount.replace(/,/g, ''));
      return Number.isFinite(n) ? String(Math.round(n * growth * share)) : amount;
    };
    const list = this.recorded(year).map((r) => {
      const flow = r['sj_div'] === 'IS' || r['sj_div'] === 'CIS' || r['sj_div'] === 'CF';
      const row: DartStatementRow = { ...r, rcept_no: filing.rceptNo, reprt_code: filing.reprtCode, bsns_year: String(year), corp_code: corp.corpCode };
      if (!flow) {
        row['thstrm_amount'] = scaled(r['thstrm_amount'], 1) ?? '';
        return row;
      }
      const income = r['sj_div'] !== 'CF';
      row['thstrm_amount'] = scaled(r['thstrm_amount'], income && quarter < 4 ? 1 / 4 : quarter / 4) ?? '';
      if (income && (quarter === 2 || quarter === 3)) row['thstrm_add_amount'] = scaled(r['thstrm_amount'], quarter / 4) ?? '';
      return row;
    });
    return json({ status: '000', message: '정상', list });
  }

  /**
   * alotMatter.json of a copy: Samsung Electronics' recorded dividend section of its 2020 Q1
   * report (test/fixtures/real/opendart), re-keyed to the copy's corp_code and receipt number.
   * DERIVED for the other reports: the common and preferred share's cash dividend per share is
   * the recorded quarter's 354 won times the fiscal quarter (year to date, as the recorded
   * half-year answer's 708 shows); the other rows as recorded.
   */
  dividendsOf(q: URLSearchParams): Answer {
    const noData = json({ status: '013', message: '조회된 데이타가 없습니다.' });
    const corp = this.universe.krByCorp.get(q.get('corp_code') ?? '');
    const filing = corp ? this.filings().byKey.get(`${corp.corpCode}:${Number(q.get('bsns_year'))}:${q.get('reprt_code') ?? ''}`) : undefined;
    if (!corp || !filing) return noData;
    const quarter = { '11013': 1, '11012': 2, '11014': 3, '11011': 4 }[filing.reprtCode];
    this.dividendRows ??= realJson<{ list: Record<string, string>[] }>('opendart/alotMatter_00126380_2020_11013.json').list;
    const list = this.dividendRows.map((r) => ({
      ...r,
      rcept_no: filing.rceptNo,
      corp_code: corp.corpCode,
      corp_name: corp.name,
      ...(r['se'] === '주당 현금배당금(원)' ? { thstrm: String(354 * quarter) } : {}),
    }));
    return json({ status: '000', message: '정상', list });
  }

  private dividendRows: Record<string, string>[] | null = null;

  company(q: URLSearchParams): Answer {
    const corp = this.universe.krByCorp.get(q.get('corp_code') ?? '');
    if (!corp) return json({ status: '013', message: '조회된 데이타가 없습니다.' });
    return json({
      ...corp.template.company,
      corp_code: corp.corpCode,
      corp_name: `${corp.name}(주)`,
      corp_name_eng: corp.nameEn,
      stock_name: corp.name,
      stock_code: corp.stockCode,
      corp_cls: corp.corpCls,
    });
  }
}

// ---------------------------------------------------------------------------------------
// SEC

export interface FactsTemplate {
  /** Everything after `"entityName":"..."`, from the `"facts"` key to the end (the bytes shared by every copy). */
  tail: Buffer;
  /** The latest cover-page shares fact (for the frames answer). */
  shares: { end: string; val: number; accn: string } | null;
}

/** A copy's companyfacts: its own `cik` and `entityName`, then the template's facts byte for byte. */
export function factsHead(c: UsCompany): Buffer {
  return Buffer.from(`{"cik":${c.cik},"entityName":${JSON.stringify(c.title)},`, 'utf8');
}

export class SecApi {
  private readonly facts = new Map<string, FactsTemplate>();
  private readonly submissions = new Map<string, Record<string, unknown>>();
  private tickersBody: string | null = null;

  constructor(
    private readonly universe: Universe,
    private readonly today: () => string,
  ) {}

  factsTemplate(file: string): FactsTemplate {
    let t = this.facts.get(file);
    if (!t) {
      const raw = real(file);
      const at = raw.indexOf('"facts"');
      const parsed = JSON.parse(raw.toString('utf8')) as { facts: { dei?: { EntityCommonStockSharesOutstanding?: { units: { shares: { end: string; val: number; accn: string }[] } } } } };
      const covers = parsed.facts.dei?.EntityCommonStockSharesOutstanding?.units.shares ?? [];
      const latest = covers.reduce<(typeof covers)[number] | null>((a, f) => (a === null || f.end > a.end ? f : a), null);
      t = { tail: raw.subarray(at), shares: latest ? { end: latest.end, val: latest.val, accn: latest.accn } : null };
      this.facts.set(file, t);
    }
    return t;
  }

  submissionsOf(c: UsCompany): string {
    let t = this.submissions.get(c.template.submissions);
    if (!t) {
      t = realJson<Record<string, unknown>>(c.template.submissions);
      this.submissions.set(c.template.submissions, t);
    }
    return JSON.stringify({ ...t, cik: String(c.cik).padStart(10, '0'), name: c.title, tickers: [c.ticker], formerNames: [] });
  }

  tickers(): Answer {
    this.tickersBody ??= JSON.stringify(Object.fromEntries(this.universe.us.map((c, i) => [String(i), { cik_str: c.cik, ticker: c.ticker, title: c.title }])));
    return { headers: JSON_TYPE, body: this.tickersBody };
  }

  companyFacts(cik: number): Answer | null {
    const c = this.universe.usByCik.get(cik);
    if (!c) return null;
    return { headers: JSON_TYPE, body: Buffer.concat([factsHead(c), this.factsTemplate(c.template.facts).tail]) };
  }

  submissionsAnswer(cik: number): Answer | null {
    const c = this.universe.usByCik.get(cik);
    return c ? { headers: JSON_TYPE, body: this.submissionsOf(c) } : null;
  }

  /**
   * CONSTRUCTED (no frames recording at this scale): the frames API's documented shape, one row
   * per copy holding its template's latest recorded cover-page shares fact, as test/e2e/upstream.ts.
   */
  sharesFrame(year: number, quarter: number): Answer {
    const data = this.universe.us
      .map((c) => {
        const s = this.factsTemplate(c.template.facts).shares;
        return s ? { accn: s.accn, cik: c.cik, entityName: c.title, end: s.end, val: s.val } : null;
      })
      .filter((r) => r !== null);
    return json({ taxonomy: 'dei', tag: 'EntityCommonStockSharesOutstanding', ccp: `CY${year}Q${quarter}I`, uom: 'shares', label: 'Entity Common Stock, Shares Outstanding', pts: data.length, data });
  }

  /**
   * CONSTRUCTED: EDGAR's daily form index (fixed-width, after a dashed line) listing the copies
   * that file a 10-Q or 10-K that weekday: each copy files about 40 days after a quarter's end.
   */
  dailyIndex(date: string): Answer {
    const day = epochDay(date);
    if (!isWeekday(day) || date >= this.today()) return { status: 404, body: 'Not Found' };
    const month = Number(date.slice(5, 7));
    const dom = Number(date.slice(8, 10));
    const filingMonth = [2, 5, 8, 11].includes(month);
    const lines = [
      'Description:           Daily Index of EDGAR Dissemination Feed by Form Type',
      `Last Data Received:    ${date}`,
      '',
      'Form Type   Company Name                                                  CIK         Date Filed  File Name',
      '-'.repeat(141),
    ];
    if (filingMonth) {
      for (const c of this.universe.us) {
        if (1 + (c.index % 28) !== dom) continue;
        const form = month === 2 ? '10-K' : '10-Q';
        lines.push(`${form.padEnd(12)}${c.title.slice(0, 60).padEnd(62)}${String(c.cik).padEnd(12)}${compact(date)}    edgar/data/${c.cik}/${String(c.cik).padStart(10, '0')}-${date.slice(2, 4)}-000001.txt`);
      }
    }
    return { headers: { 'content-type': 'text/plain' }, body: `${lines.join('\n')}\n` };
  }
}

// ---------------------------------------------------------------------------------------
// Prices: FSC (data.go.kr) and Polygon

/** Trading days (weekdays) from `from` to `to` inclusive, ISO. */
function weekdays(from: string, to: string): number[] {
  const out: number[] = [];
  for (let d = epochDay(from); d <= epochDay(to); d++) if (isWeekday(d)) out.push(d);
  return out;
}

const SHARES_KR = (c: KrCompany): number => Math.round(10_000_000 + unit(c.index + 77) * 490_000_000);

export function fscItem(c: KrCompany, day: number): Record<string, string> {
  const p = priceOn(c.basePrice, c.index, day);
  const prev = priceOn(c.basePrice, c.index, day - 1).close;
  const close = Math.round(p.close);
  const shares = SHARES_KR(c);
  return {
    basDt: compact(isoOfDay(day)),
    srtnCd: c.stockCode,
    isinCd: `KR7${c.stockCode}003`,
    itmsNm: c.name,
    mrktCtg: c.corpCls === 'Y' ? 'KOSPI' : 'KOSDAQ',
    clpr: String(close),
    vs: String(close - Math.round(prev)),
    fltRt: String(Math.round(((close - prev) / prev) * 10_000) / 100).replace(/^(-?)0\./, '$1.'),
    mkp: String(Math.round(p.open)),
    hipr: String(Math.round(p.high)),
    lopr: String(Math.round(p.low)),
    trqu: String(p.volume),
    trPrc: String(p.volume * close),
    lstgStCnt: String(shares),
    mrktTotAmt: String(shares * close),
  };
}

/**
 * FSC getStockPriceInfo, re-keyed from the recorded Samsung Electronics row (same fields, the
 * copy's code, name, market and price path): every copy on every weekday asked for, by basDt or
 * beginBasDt/endBasDt (exclusive), paged by numOfRows/pageNo with totalCount. The day before the
 * current one is the latest published.
 */
export function fscPrices(universe: Universe, q: URLSearchParams, today: string): Answer {
  const numOfRows = Math.max(1, Number(q.get('numOfRows') ?? 10));
  const pageNo = Math.max(1, Number(q.get('pageNo') ?? 1));
  const yesterday = isoOfDay(epochDay(today) - 1);
  let days: number[];
  const basDt = q.get('basDt');
  if (basDt) days = weekdays(isoOf(basDt), isoOf(basDt)).filter((d) => isoOfDay(d) <= yesterday);
  else {
    const begin = isoOf(q.get('beginBasDt') ?? '19000101');
    const endExclusive = isoOf(q.get('endBasDt') ?? '99991231');
    const last = isoOfDay(epochDay(endExclusive) - 1);
    days = weekdays(begin, last < yesterday ? last : yesterday);
  }
  const n = universe.kr.length;
  const total = days.length * n;
  const items: Record<string, string>[] = [];
  for (let k = (pageNo - 1) * numOfRows; k < Math.min(total, pageNo * numOfRows); k++) {
    items.push(fscItem(universe.kr[k % n] as KrCompany, days[Math.floor(k / n)] as number));
  }
  return json({
    response: {
      header: { resultCode: '00', resultMsg: 'NORMAL SERVICE.' },
      body: { numOfRows, pageNo, totalCount: total, items: items.length === 0 ? '' : { item: items } },
    },
  });
}

/** Polygon free plan: end-of-day data for the last two years. */
export const POLYGON_HISTORY_DAYS = 730;

/**
 * Polygon grouped daily, re-keyed from the recorded grouped row shape ({T, v, vw, o, c, h, l, t, n}):
 * one row per copy on a weekday before today; older than two years: the free plan's 403.
 */
export function polygonGrouped(universe: Universe, date: string, today: string): Answer {
  const day = epochDay(date);
  if (day < epochDay(today) - POLYGON_HISTORY_DAYS) {
    return json({ status: 'NOT_AUTHORIZED', request_id: 'replica', message: "Your plan doesn't include this data timeframe. Please upgrade your plan at https://polygon.io/pricing" }, 403);
  }
  const results = !isWeekday(day) || date >= today
    ? []
    : universe.us.map((c) => {
        const p = priceOn(c.basePrice, c.index + 5_000, day);
        const r = (x: number) => Math.round(x * 100) / 100;
        return { T: c.ticker, v: p.volume, vw: r((p.high + p.low + p.close) / 3), o: r(p.open), c: r(p.close), h: r(p.high), l: r(p.low), t: Date.parse(`${date}T20:00:00Z`), n: Math.round(p.volume / 250) };
      });
  return json({ queryCount: results.length, resultsCount: results.length, adjusted: true, ...(results.length ? { results } : {}), status: 'OK', request_id: 'replica', count: results.length });
}

// ---------------------------------------------------------------------------------------
// ECOS, Korea Customs (CONSTRUCTED: no recording exists; the documented formats of
// test/fixtures/sources/ecos and /customs, values from a deterministic path)

export function ecosRates(path: string[], today: string): Answer {
  // ['', 'api', 'StatisticSearch', key, 'json', 'kr', start, end, '731Y001', 'D', from, to, '0000001']
  const [start, end, from, to] = [Number(path[6]), Number(path[7]), path[10] ?? '', path[11] ?? ''];
  const yesterday = isoOfDay(epochDay(today) - 1);
  const last = isoOf(to) < yesterday ? isoOf(to) : yesterday;
  const days = weekdays(isoOf(from), last);
  if (days.length === 0) return json({ RESULT: { CODE: 'INFO-200', MESSAGE: '해당하는 데이터가 없습니다.' } });
  const row = days.slice(start - 1, end).map((d) => ({
    STAT_CODE: '731Y001',
    STAT_NAME: '3.1.1.1. 주요국 통화의 대원화환율',
    ITEM_CODE1: '0000001',
    ITEM_NAME1: '원/미국달러(매매기준율)',
    UNIT_NAME: '원 ',
    TIME: compact(isoOfDay(d)),
    DATA_VALUE: (1_200 + 150 * Math.sin(d / 300)).toFixed(1),
  }));
  return json({ StatisticSearch: { list_total_count: days.length, row } });
}

const HS_CODES: [string, string][] = [
  ['8542321010', '디램'],
  ['8541490000', '기타'],
  ['8703231000', '승용차'],
  ['2710192000', '경유'],
  ['8901201000', '유조선'],
];

function months(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(4, 6));
  while (`${y}${String(m).padStart(2, '0')}` <= to) {
    out.push(`${y}.${String(m).padStart(2, '0')}`);
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

export function customs(path: string, q: URLSearchParams, today: string): Answer {
  const from = q.get('strtYymm') ?? '';
  const lastMonth = (() => {
    const d = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() - 1);
    return d.toISOString().slice(0, 7).replace('-', '');
  })();
  const to = (q.get('endYymm') ?? '') < lastMonth ? (q.get('endYymm') ?? '') : lastMonth;
  const ms = months(from, to);
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><response><header><resultCode>00</resultCode><resultMsg>정상서비스.</resultMsg></header><body><items>';
  const wave = (m: string, k: number) => Math.round(40e9 + 15e9 * Math.sin(Number(m.replace('.', '')) / 7 + k));
  if (path.endsWith('getNewtradeList')) {
    const items = ms.map((m) => {
      const exp = wave(m, 0);
      const imp = wave(m, 1);
      return `<item><balPayments>${exp - imp}</balPayments><expDlr>${exp}</expDlr><impDlr>${imp}</impDlr><year>${m}</year></item>`;
    });
    return xml(`${head}${items.join('')}</items><totalCount>${items.length}</totalCount></body></response>`);
  }
  const items = ms.flatMap((m) => HS_CODES.map(([hs, name], k) => `<item><expDlr>${Math.round(wave(m, k + 2) / 20)}</expDlr><hsCode>${hs}</hsCode><impDlr>${Math.round(wave(m, k + 3) / 30)}</impDlr><statKor>${name}</statKor><year>${m}</year></item>`));
  const numOfRows = Number(q.get('numOfRows') ?? items.length);
  const pageNo = Number(q.get('pageNo') ?? 1);
  const page = items.slice((pageNo - 1) * numOfRows, pageNo * numOfRows);
  return xml(`${head}${page.join('')}</items><numOfRows>${numOfRows}</numOfRows><pageNo>${pageNo}</pageNo><totalCount>${items.length}</totalCount></body></response>`);
}

// ---------------------------------------------------------------------------------------
// KRX data marketplace (CONSTRUCTED rows in the documented MDCSTAT02401 / MDCSTAT01501 shapes)

const comma = (n: number): string => Math.round(n).toLocaleString('en-US');

export function krxData(universe: Universe, form: URLSearchParams, today: string): Answer {
  const bld = form.get('bld') ?? '';
  const mkt = form.get('mktId') ?? 'ALL';
  const inMarket = (c: KrCompany): boolean => mkt === 'ALL' || (mkt === 'STK' ? c.corpCls === 'Y' : mkt === 'KSQ' ? c.corpCls === 'K' : false);
  if (bld.endsWith('MDCSTAT02401')) {
    const date = isoOf(form.get('strtDd') ?? '');
    const day = epochDay(date);
    const investor = Number(form.get('invstTpCd') ?? 0);
    const open = isWeekday(day) && date < today;
    const output = open
      ? universe.kr.filter(inMarket).map((c) => {
          const net = (unit(c.index * 31 + day + investor) - 0.5) * 2e10;
          return { ISU_SRT_CD: c.stockCode, ISU_NM: c.name, ASK_TRDVOL: '0', BID_TRDVOL: '0', NETBID_TRDVOL: '0', ASK_TRDVAL: comma(Math.max(0, -net)), BID_TRDVAL: comma(Math.max(0, net)), NETBID_TRDVAL: comma(net) };
        })
      : [];
    return json({ output, CurrentDatetime: `${date.replace(/-/g, '.')} PM 06:10:03` });
  }
  if (bld.endsWith('MDCSTAT01501')) {
    const date = isoOf(form.get('trdDd') ?? '');
    const day = epochDay(date);
    const rows = isWeekday(day) && date < today
      ? universe.kr.filter(inMarket).map((c) => {
          const it = fscItem(c, day);
          return {
            ISU_SRT_CD: c.stockCode, ISU_CD: it['isinCd'], ISU_ABBRV: c.name, MKT_NM: it['mrktCtg'], SECT_TP_NM: '', TDD_CLSPRC: comma(Number(it['clpr'])),
            FLUC_TP_CD: '1', CMPPREVDD_PRC: comma(Number(it['vs'])), FLUC_RT: it['fltRt'], TDD_OPNPRC: comma(Number(it['mkp'])), TDD_HGPRC: comma(Number(it['hipr'])),
            TDD_LWPRC: comma(Number(it['lopr'])), ACC_TRDVOL: comma(Number(it['trqu'])), ACC_TRDVAL: comma(Number(it['trPrc'])), MKTCAP: comma(Number(it['mrktTotAmt'])),
            LIST_SHRS: comma(Number(it['lstgStCnt'])), MKT_ID: c.corpCls === 'Y' ? 'STK' : 'KSQ',
          };
        })
      : [];
    return json({ OutBlock_1: rows, CURRENT_DATETIME: `${date.replace(/-/g, '.')} PM 06:10:03` });
  }
  return json({ error: 'unknown bld' }, 400);
}
