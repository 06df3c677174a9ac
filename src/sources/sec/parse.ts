// Parsers for SEC EDGAR: company_tickers.json, the XBRL companyfacts API
// (data.sec.gov/api/xbrl/companyfacts/CIK##########.json), submissions (for SIC and fiscal
// year end) and the daily form index (for incremental runs).
//
// Quirk handled here: fy/fp on a fact belong to the FILING, not to the fact's own period. A
// 10-Q carries prior-year comparatives tagged with the filing's fy/fp, and a Q2 10-Q carries
// both the three-month and the six-month figure. So per filing (accn) we take the period end
// of the filing and, for flows, the fact ending there whose duration matches the fiscal
// period year-to-date (Q1 ~3 months, Q2 ~6, Q3 ~9, FY ~12).

import type { FinancialReport, FiscalQuarter, Security } from '../../domain/model.js';
import { daysBetween, isRecord, str } from '../shared/parse.js';

export const SOURCE_NAME = 'sec';

export interface TickerEntry {
  cik: number;
  ticker: string;
  title: string;
}

/** `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}`; tickers use '.' for classes (BRK-B -> BRK.B). */
export function parseCompanyTickers(body: unknown): TickerEntry[] | null {
  if (!isRecord(body)) return null;
  const out: TickerEntry[] = [];
  for (const v of Object.values(body)) {
    if (!isRecord(v)) continue;
    const cik = Number(v['cik_str']);
    const ticker = str(v, 'ticker').trim().toUpperCase().replace(/-/g, '.');
    if (!Number.isInteger(cik) || cik <= 0 || ticker === '') continue;
    out.push({ cik, ticker, title: str(v, 'title').trim() });
  }
  return out;
}

export const cik10 = (cik: number): string => String(cik).padStart(10, '0');

interface Fact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number | null;
  fp: string;
  form: string;
  filed: string;
}

const FORMS = new Set(['10-Q', '10-K', '10-Q/A', '10-K/A']);

function facts(body: Record<string, unknown>, taxonomy: string, concept: string, unit: string): Fact[] {
  const tax = body['facts'];
  if (!isRecord(tax) || !isRecord(tax[taxonomy])) return [];
  const c = (tax[taxonomy] as Record<string, unknown>)[concept];
  if (!isRecord(c) || !isRecord(c['units'])) return [];
  const list = (c['units'] as Record<string, unknown>)[unit];
  if (!Array.isArray(list)) return [];
  const out: Fact[] = [];
  for (const f of list) {
    if (!isRecord(f) || typeof f['val'] !== 'number' || typeof f['end'] !== 'string') continue;
    const form = str(f, 'form');
    if (!FORMS.has(form)) continue;
    out.push({
      start: typeof f['start'] === 'string' ? f['start'] : undefined,
      end: f['end'],
      val: f['val'],
      accn: str(f, 'accn'),
      fy: typeof f['fy'] === 'number' ? f['fy'] : null,
      fp: str(f, 'fp'),
      form,
      filed: str(f, 'filed'),
    });
  }
  return out;
}

type Item = Exclude<keyof FinancialReport, 'market' | 'code' | 'fiscalYear' | 'fiscalQuarter' | 'periodEnd' | 'disclosedOn' | 'consolidated' | 'source'>;

/** us-gaap concepts per item, first present wins. */
const FLOW_CONCEPTS: Partial<Record<Item, readonly string[]>> = {
  revenue: ['Revenues', 'RevenueFromContractWithCustomerExcludingAssessedTax', 'SalesRevenueNet', 'RevenueFromContractWithCustomerIncludingAssessedTax'],
  costOfSales: ['CostOfRevenue', 'CostOfGoodsAndServicesSold', 'CostOfGoodsSold'],
  operatingIncome: ['OperatingIncomeLoss'],
  netIncome: ['NetIncomeLoss'],
  operatingCashFlow: ['NetCashProvidedByUsedInOperatingActivities'],
  capex: ['PaymentsToAcquirePropertyPlantAndEquipment'],
  interestExpense: ['InterestExpense', 'InterestExpenseNonoperating', 'InterestExpenseDebt'],
};

const BALANCE_CONCEPTS: Partial<Record<Item, readonly string[]>> = {
  totalAssets: ['Assets'],
  currentAssets: ['AssetsCurrent'],
  totalLiabilities: ['Liabilities'],
  currentLiabilities: ['LiabilitiesCurrent'],
  equity: ['StockholdersEquity'],
  cash: ['CashAndCashEquivalentsAtCarryingValue'],
  receivables: ['AccountsReceivableNetCurrent'],
  inventory: ['InventoryNet'],
  payables: ['AccountsPayableCurrent'],
};

/** Expected year-to-date length in days per fiscal period, with room for 52/53-week years. */
const YTD_DAYS: Record<FiscalQuarter, [number, number]> = { 1: [80, 100], 2: [170, 190], 3: [260, 285], 4: [350, 380] };
const FP: Record<string, FiscalQuarter> = { Q1: 1, Q2: 2, Q3: 3, FY: 4 };

interface Filing {
  accn: string;
  form: string;
  filed: string;
  fy: number;
  quarter: FiscalQuarter;
  periodEnd: string;
}

export interface CompanyFactsResult {
  reports: FinancialReport[];
  /** Month the fiscal year ends, from the latest 10-K period end; null without a 10-K. */
  fiscalYearEndMonth: number | null;
  entityName: string;
}

/** Maps a companyfacts document to one FinancialReport per 10-Q/10-K (and amendment) carrying financials. */
export function parseCompanyFacts(body: unknown, code: string): CompanyFactsResult | null {
  if (!isRecord(body) || !isRecord(body['facts'])) return null;
  const entityName = str(body, 'entityName');
  const byConcept = new Map<string, Fact[]>();
  const gaap = (concept: string): Fact[] => {
    let f = byConcept.get(concept);
    if (!f) {
      f = facts(body, 'us-gaap', concept, 'USD');
      byConcept.set(concept, f);
    }
    return f;
  };
  const allConcepts = [
    ...Object.values(FLOW_CONCEPTS).flat(),
    ...Object.values(BALANCE_CONCEPTS).flat(),
    'LongTermDebt', 'LongTermDebtNoncurrent', 'LongTermDebtCurrent', 'ShortTermBorrowings', 'CommercialPaper', 'DebtCurrent',
  ];

  // The filing's own period end is the latest `end` among its us-gaap facts (dei cover
  // facts such as shares outstanding are dated after the period and are left out).
  const filings = new Map<string, Filing>();
  for (const concept of allConcepts) {
    for (const f of gaap(concept)) {
      const quarter = FP[f.fp];
      if (quarter === undefined || f.fy === null) continue;
      const prev = filings.get(f.accn);
      if (!prev) filings.set(f.accn, { accn: f.accn, form: f.form, filed: f.filed, fy: f.fy, quarter, periodEnd: f.end });
      else if (f.end > prev.periodEnd) prev.periodEnd = f.end;
    }
  }

  const flow = (filing: Filing, concepts: readonly string[] | undefined): number | null => {
    const [lo, hi] = YTD_DAYS[filing.quarter];
    for (const concept of concepts ?? []) {
      const candidates = gaap(concept).filter(
        (f) => f.accn === filing.accn && f.end === filing.periodEnd && f.start !== undefined,
      );
      let best: Fact | undefined;
      for (const f of candidates) {
        const days = daysBetween(f.start ?? f.end, f.end);
        if (days >= lo && days <= hi && (!best || days > daysBetween(best.start ?? best.end, best.end))) best = f;
      }
      if (best) return best.val;
    }
    return null;
  };
  const balance = (filing: Filing, concepts: readonly string[]): number | null => {
    for (const concept of concepts) {
      const f = gaap(concept).find((x) => x.accn === filing.accn && x.end === filing.periodEnd && x.start === undefined);
      if (f) return f.val;
    }
    return null;
  };
  const sharesFacts = facts(body, 'dei', 'EntityCommonStockSharesOutstanding', 'shares');

  const reports: FinancialReport[] = [];
  let fyeMonth: number | null = null;
  let latestFyEnd = '';
  for (const filing of [...filings.values()].sort((a, b) => a.filed.localeCompare(b.filed) || a.accn.localeCompare(b.accn))) {
    const item = (i: Item): number | null => {
      const fc = FLOW_CONCEPTS[i];
      if (fc) return flow(filing, fc);
      const bc = BALANCE_CONCEPTS[i];
      return bc ? balance(filing, bc) : null;
    };
    const longTerm =
      balance(filing, ['LongTermDebt']) ??
      sumOrNull([balance(filing, ['LongTermDebtNoncurrent']), balance(filing, ['LongTermDebtCurrent'])]);
    const shortTerm = balance(filing, ['ShortTermBorrowings', 'CommercialPaper']);
    const debt = sumOrNull([longTerm, shortTerm]) ?? balance(filing, ['DebtCurrent']);
    // Cover-page shares are dated after the period; several classes are summed.
    const cover = sharesFacts.filter((s) => s.accn === filing.accn);
    const coverEnd = cover.map((s) => s.end).sort().at(-1);
    const shares = coverEnd === undefined ? null : cover.filter((s) => s.end === coverEnd).reduce((a, s) => a + s.val, 0);
    const capex = item('capex');
    const interest = item('interestExpense');
    const report: FinancialReport = {
      market: 'US',
      code,
      fiscalYear: filing.fy,
      fiscalQuarter: filing.quarter,
      periodEnd: filing.periodEnd,
      disclosedOn: filing.filed,
      consolidated: true,
      revenue: item('revenue'),
      costOfSales: item('costOfSales'),
      operatingIncome: item('operatingIncome'),
      netIncome: item('netIncome'),
      operatingCashFlow: item('operatingCashFlow'),
      capex: capex === null ? null : Math.abs(capex),
      interestExpense: interest === null ? null : Math.abs(interest),
      totalAssets: item('totalAssets'),
      currentAssets: item('currentAssets'),
      totalLiabilities: item('totalLiabilities'),
      currentLiabilities: item('currentLiabilities'),
      equity: item('equity'),
      cash: item('cash'),
      debt,
      receivables: item('receivables'),
      inventory: item('inventory'),
      payables: item('payables'),
      shares,
      source: SOURCE_NAME,
    };
    // A filing with no current-period figure (e.g. a 10-K/A that only amends Part III) is not a report.
    const hasData = [...Object.keys(FLOW_CONCEPTS), ...Object.keys(BALANCE_CONCEPTS)].some(
      (k) => report[k as Item] !== null,
    );
    if (!hasData) continue;
    reports.push(report);
    if (filing.quarter === 4 && filing.periodEnd > latestFyEnd) {
      latestFyEnd = filing.periodEnd;
      fyeMonth = fiscalMonthOf(filing.periodEnd);
    }
  }
  return { reports, fiscalYearEndMonth: fyeMonth, entityName };
}

function sumOrNull(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
}

/** 52/53-week years end on a weekday near month end; an end in the first week belongs to the previous month. */
export function fiscalMonthOf(iso: string): number {
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  return day <= 7 ? ((month + 10) % 12) + 1 : month;
}

/** submissions JSON: name, exchanges[], sicDescription, fiscalYearEnd ("0928"). */
export function parseSubmissions(body: unknown): { exchange: string; sector: string; fiscalYearEndMonth: number | null } | null {
  if (!isRecord(body)) return null;
  const exchanges = Array.isArray(body['exchanges']) ? body['exchanges'].filter((e): e is string => typeof e === 'string' && e !== '') : [];
  const fye = str(body, 'fiscalYearEnd');
  const month = /^\d{4}$/.test(fye) ? fiscalMonthOf(`2000-${fye.slice(0, 2)}-${fye.slice(2)}`) : null;
  return {
    exchange: (exchanges[0] ?? '').toUpperCase(),
    sector: str(body, 'sicDescription').trim() || 'Unclassified',
    fiscalYearEndMonth: month,
  };
}

export function usSecurity(code: string, name: string, exchange: string, sector: string, fiscalYearEndMonth: number): Security {
  return { market: 'US', code, name, exchange, sector, currency: 'USD', fiscalYearEndMonth, source: SOURCE_NAME };
}

/**
 * EDGAR daily index by form type (`Archives/edgar/daily-index/YYYY/QTRn/form.YYYYMMDD.idx`):
 * a header, a dashed line, then fixed-width rows
 * `Form Type   Company Name   CIK   Date Filed   File Name`. Returns CIKs that filed 10-Q/10-K or their amendments.
 */
export function parseDailyFormIndex(text: string): number[] {
  const lines = text.split(/\r?\n/);
  const dash = lines.findIndex((l) => /^-{20,}/.test(l));
  const ciks = new Set<number>();
  for (const line of lines.slice(dash + 1)) {
    const m = /^(\S+(?: \S+)*?)\s{2,}.*?\s(\d{1,10})\s+(\d{8})\s+(\S+)\s*$/.exec(line);
    if (!m || !FORMS.has(m[1] ?? '')) continue;
    ciks.add(Number(m[2]));
  }
  return [...ciks].sort((a, b) => a - b);
}
