// The replica's API answers, per upstream, at the universe's scale. Where a recording exists the
// answer is that recording re-keyed to the copy (ids, names and dates rewritten, amounts kept);
// where none exists (ECOS, Korea Customs, KRX investor flows, SEC frames and daily indexes) the
// answer is CONSTRUCTED in the provider's documented format, as test/e2e/upstream.ts does at
// small scale, and said so in the comment above it.

import { CASH_WITH_RESTRICTED, DEBT_CONCEPTS, debtOf, RESTRICTED_CASH } from '../../src/sources/sec/parse.js';
import { zipOne } from '../../test/sources/helpers.js';
import { financialRows } from './financial.js';
import { epochDay, FINANCIAL_SECTORS, isoOfDay, isWeekday, priceOn, real, realJson, unit, type ForeignFiler, type KrCompany, type Universe, type UsCompany, type UsTemplate } from './universe.js';

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
   * 013 for CFS, as such filers do. Financial-sector copies answer their sector's layout
   * (`financialStatementRows`).
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
    if (corp.financial !== null) return json({ status: '000', message: '정상', list: financialStatementRows(corp, filing, quarter, fsDiv === 'CFS') });
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
      ...(corp.financial === null ? {} : { induty_code: FINANCIAL_SECTORS.find((f) => f.sector === corp.financial)?.ksic ?? '' }),
    });
  }

  /**
   * alotMatter.json (배당에 관한 사항) of a copy's periodic report: Samsung Electronics' recorded
   * answer of its 2020 Q1 report (test/fixtures/real/opendart; every row and field as recorded:
   * `se`, `stock_knd` on the per-share rows, `thstrm` this year to date, `frmtrm` and `lwfr` the
   * two fiscal years before), re-keyed to the copy's corp_code, name and receipt number, with the
   * cash-dividend rows CONSTRUCTED per copy (deterministically from its index, the same on every
   * run; no copy's figures are real): seven copies in ten pay 0.5-5 % of their base price a
   * year (one in five of them quarterly, the rest once, with the annual report), the common and
   * preferred share alike; the rest answer `-`. 013 when the report is not filed.
   */
  alotMatter(q: URLSearchParams): Answer {
    const corp = this.universe.krByCorp.get(q.get('corp_code') ?? '');
    const year = Number(q.get('bsns_year'));
    const filing = corp ? this.filings().byKey.get(`${corp.corpCode}:${year}:${q.get('reprt_code') ?? ''}`) : undefined;
    if (!corp || !filing) return json({ status: '013', message: '조회된 데이타가 없습니다.' });
    const quarter = { '11013': 1, '11012': 2, '11014': 3, '11011': 4 }[filing.reprtCode];
    const pays = unit(corp.index + 31_000) < 0.7;
    const quarterly = pays && unit(corp.index + 32_000) < 0.2;
    const annual = pays ? Math.max(10, Math.round((corp.basePrice * (0.005 + 0.045 * unit(corp.index + 33_000))) / 10) * 10) : 0;
    const paidTo = (quarters: number): number => (quarterly ? (annual * quarters) / 4 : quarters === 4 ? annual : 0);
    const text = (n: number, digits = 0): string => (n > 0 ? (digits === 0 ? comma(n) : n.toFixed(digits)) : '-');
    const shares = SHARES_KR(corp);
    const now = paidTo(quarter);
    const before = paidTo(4);
    this.dividendRows ??= realJson<{ list: Record<string, string>[] }>('opendart/alotMatter_00126380_2020_11013.json').list;
    const list = this.dividendRows.map((r) => {
      const row: Record<string, string> = { ...r, rcept_no: filing.rceptNo, corp_cls: corp.corpCls, corp_code: corp.corpCode, corp_name: corp.name };
      const set = (thisYear: string, earlier: string): Record<string, string> => ({ ...row, thstrm: thisYear, frmtrm: earlier, lwfr: earlier });
      if (r['se'] === '주당 현금배당금(원)') return set(text(now), text(before));
      if (r['se'] === '현금배당수익률(%)') return set(text((now * 100) / corp.basePrice, 2), text((before * 100) / corp.basePrice, 2));
      if (r['se'] === '현금배당금총액(백만원)') return set(text((now * shares) / 1_000_000), text((before * shares) / 1_000_000));
      return row;
    });
    return json({ status: '000', message: '정상', list });
  }
}

/**
 * fnlttSinglAcntAll.json rows of a financial-sector copy, CONSTRUCTED from its real sector
 * rows (bench/replica/financial.ts; no API answer of a bank, insurer or securities firm is
 * recorded): one row per bulk row in the API's fields (sj_div BS, CIS or CF by the statement,
 * account_id the 항목코드, account_nm the trimmed 항목명), balances as recorded, income the
 * recorded quarter's (three months in `thstrm_amount`, the year to date in `thstrm_add_amount`
 * for the half and Q3, the year's four quarters in the annual report), cash flows the recorded
 * quarter's times the quarters to date.
 */
function financialStatementRows(corp: KrCompany, filing: Filing, quarter: number, consolidated: boolean): DartStatementRow[] {
  const out: DartStatementRow[] = [];
  const amount = (cell: string | undefined, factor: number): string => {
    const n = Number((cell ?? '').replace(/,/g, ''));
    return (cell ?? '').trim() === '' || !Number.isFinite(n) ? '' : String(Math.round(n * factor));
  };
  for (const [member, sjDiv, sjNm] of [['01', 'BS', '재무상태표'], ['03', 'CIS', '포괄손익계산서'], ['04', 'CF', '현금흐름표']] as const) {
    let ord = 0;
    for (const cells of financialRows(corp, member, consolidated)) {
      const value = cells[12];
      const row: DartStatementRow = {
        rcept_no: filing.rceptNo, reprt_code: filing.reprtCode, bsns_year: String(filing.year), corp_code: corp.corpCode,
        sj_div: sjDiv, sj_nm: sjNm, account_id: cells[10] ?? '', account_nm: (cells[11] ?? '').trim(), account_detail: '-',
        thstrm_nm: '당기', thstrm_amount: '', ord: String(++ord), currency: cells[9] ?? 'KRW',
      };
      if (sjDiv === 'BS') row['thstrm_amount'] = amount(value, 1);
      else if (sjDiv === 'CF') row['thstrm_amount'] = amount(value, quarter);
      else {
        row['thstrm_amount'] = amount(value, quarter === 4 ? 4 : 1);
        if (quarter === 2 || quarter === 3) row['thstrm_add_amount'] = amount(value, quarter);
      }
      out.push(row);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// SEC

/**
 * The share-count frames the replica answers, as the Polygon source asks them: the cover page's
 * count, then (for companies that file it per class) the balance sheet's, then the quarter's
 * weighted average (a duration frame).
 */
export const SHARE_FRAMES = ['dei/EntityCommonStockSharesOutstanding', 'us-gaap/CommonStockSharesOutstanding', 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic'] as const;
export type ShareFrame = (typeof SHARE_FRAMES)[number];

export interface FactsTemplate {
  /** Everything after `"entityName":"..."`, from the `"facts"` key to the end (the bytes shared by every copy). */
  tail: Buffer;
  /** The latest fact of each share-count concept the frames answer (`SHARE_FRAMES`). */
  shares: Record<ShareFrame, { end: string; val: number; accn: string } | null>;
}

/** A copy's companyfacts: its own `cik` and `entityName`, then the template's facts byte for byte. */
export function factsHead(c: UsCompany): Buffer {
  return Buffer.from(`{"cik":${c.cik},"entityName":${JSON.stringify(c.title)},`, 'utf8');
}

/** Names (not us-gaap's) of the lines `derivedFacts` makes, keys of IFRS_OF_US_GAAP. */
const DERIVED = {
  ownersProfit: 'derived:ProfitLossAttributableToOwnersOfParent',
  ownersEquity: 'derived:EquityAttributableToOwnersOfParent',
  cash: 'derived:CashAndCashEquivalents',
  borrowings: 'derived:Borrowings',
} as const;

/**
 * us-gaap concepts of the templates and the `ifrs-full` element a foreign filer tags the same
 * line with (IFRS Accounting Taxonomy names; a concept without one is left out, as an IFRS
 * filer has no us-gaap facts). Several concepts of one element are in the SEC reader's order of
 * preference (src/sources/sec/parse.ts, FLOW_CONCEPTS and BALANCE_CONCEPTS): the first to give a
 * filing's period gives the element's fact for it, so a later one (a fallback such as
 * `ReceivablesNetCurrent`) only fills a period none before it gave and two concepts never give
 * one period twice. `DERIVED` names a line an IFRS filer presents that the template tags only
 * in parts (see `derivedFacts`).
 */
const IFRS_OF_US_GAAP: Record<string, string> = {
  Revenues: 'Revenue',
  RevenueFromContractWithCustomerExcludingAssessedTax: 'Revenue',
  SalesRevenueNet: 'Revenue',
  RevenueFromContractWithCustomerIncludingAssessedTax: 'Revenue',
  CostOfRevenue: 'CostOfSales',
  CostOfGoodsAndServicesSold: 'CostOfSales',
  CostOfGoodsSold: 'CostOfSales',
  GrossProfit: 'GrossProfit',
  OperatingIncomeLoss: 'ProfitLossFromOperatingActivities',
  NetIncomeLoss: 'ProfitLossAttributableToOwnersOfParent',
  [DERIVED.ownersProfit]: 'ProfitLossAttributableToOwnersOfParent',
  ProfitLoss: 'ProfitLoss',
  NetIncomeLossAttributableToNoncontrollingInterest: 'ProfitLossAttributableToNoncontrollingInterests',
  IncomeTaxExpenseBenefit: 'IncomeTaxExpenseContinuingOperations',
  InterestExpense: 'InterestExpense',
  InterestExpenseNonoperating: 'InterestExpense',
  InterestExpenseDebt: 'InterestExpense',
  // Interest with the other costs of borrowing (amortized issuance costs): IAS 1.82(b)'s finance costs.
  InterestAndDebtExpense: 'FinanceCosts',
  // Lines the SEC reader takes from us-gaap filers only (interest paid where no interest expense is
  // tagged, pre-tax income for operating income): tagged as an IFRS filer does, not read from one.
  InterestPaidNet: 'InterestPaidClassifiedAsOperatingActivities',
  IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest: 'ProfitLossBeforeTax',
  EarningsPerShareBasic: 'BasicEarningsLossPerShare',
  EarningsPerShareDiluted: 'DilutedEarningsLossPerShare',
  WeightedAverageNumberOfSharesOutstandingBasic: 'WeightedAverageShares',
  CommonStockDividendsPerShareDeclared: 'DividendsRecognisedAsDistributionsToOwnersPerShare',
  NetCashProvidedByUsedInOperatingActivities: 'CashFlowsFromUsedInOperatingActivities',
  NetCashProvidedByUsedInOperatingActivitiesContinuingOperations: 'CashFlowsFromUsedInOperatingActivities',
  PaymentsToAcquirePropertyPlantAndEquipment: 'PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities',
  PaymentsToAcquireProductiveAssets: 'PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities',
  DepreciationDepletionAndAmortization: 'DepreciationAndAmortisationExpense',
  Assets: 'Assets',
  AssetsCurrent: 'CurrentAssets',
  Liabilities: 'Liabilities',
  LiabilitiesCurrent: 'CurrentLiabilities',
  StockholdersEquity: 'EquityAttributableToOwnersOfParent',
  [DERIVED.ownersEquity]: 'EquityAttributableToOwnersOfParent',
  StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest: 'Equity',
  MinorityInterest: 'NoncontrollingInterests',
  CashAndCashEquivalentsAtCarryingValue: 'CashAndCashEquivalents',
  [DERIVED.cash]: 'CashAndCashEquivalents',
  AccountsReceivableNetCurrent: 'TradeAndOtherCurrentReceivables',
  AccountsReceivableNet: 'TradeAndOtherCurrentReceivables',
  // The balance sheet's total receivables line (Costco's "receivables, net"): IFRS's trade and other receivables.
  ReceivablesNetCurrent: 'TradeAndOtherCurrentReceivables',
  InventoryNet: 'Inventories',
  AccountsPayableCurrent: 'TradeAndOtherCurrentPayables',
  [DERIVED.borrowings]: 'Borrowings',
  LongTermDebtNoncurrent: 'NoncurrentPortionOfNoncurrentBorrowings',
  LongTermDebtCurrent: 'CurrentPortionOfLongtermBorrowings',
  ShortTermBorrowings: 'ShorttermBorrowings',
  CommercialPaper: 'CommercialPapersIssued',
};

interface Fact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number;
  fp: string;
  form: string;
  filed: string;
  frame?: string;
}
type Concepts = Record<string, { label: string; description: string; units: Record<string, Fact[]> }>;

const DAY_MS = 86_400_000;

/**
 * CONSTRUCTED from a recorded template (no 20-F companyfacts recorded at this scale): a foreign
 * filer's facts as SEC publishes them for IFRS filers. The template's annual (10-K) facts become
 * the filer's 20-F or 40-F facts (fp FY); of its quarterly (10-Q) facts only the second
 * quarter's six-month flows and balances are kept, as a half-year report on 6-K (fp H1); every
 * us-gaap concept with an IFRS element (IFRS_OF_US_GAAP) moves to `ifrs-full` under that name,
 * the rest is left out; amounts are converted from USD at the filer's fixed rate into its
 * reporting currency (units `EUR`, `EUR/shares`, ...); a filer giving a USD convenience
 * translation (JPY, TWD) also has, in each filing, its own period's figures in `USD` (the
 * template's); dei facts stay, their forms renamed.
 */
/** A domestic filer's form as a foreign filer files it: 10-K as 20-F (40-F), 10-Q and 8-K as 6-K, amendments alike. */
export function foreignForm(form: string, f: ForeignFiler): string {
  const amended = form.endsWith('/A') ? '/A' : '';
  const base = amended ? form.slice(0, -2) : form;
  if (base === '10-K') return `${f.form}${amended}`;
  if (base === '10-Q' || base === '8-K') return `6-K${amended}`;
  return form;
}

/**
 * Lines an IFRS filer presents that a template tags only in parts, in the template's USD:
 * - the profit and the equity attributable to the owners of the parent (IAS 1.81B, 1.54(r)): the
 *   consolidated total less the non-controlling interest's share (0 where untagged), for a template
 *   that tags only the total (`ProfitLoss`, `StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest`);
 * - cash and cash equivalents: the cash-flow statement's total with restricted cash, where no
 *   positive restricted cash is tagged at the date (then the two are the same figure);
 * - borrowings: the total of the debt lines at each balance-sheet date, as the SEC reader adds
 *   them up (`debtOf`), the figure of the borrowings note.
 * Facts of periods the template tags the line itself for are dropped by `foreignFacts` (the tagged
 * concept comes first in IFRS_OF_US_GAAP).
 */
function derivedFacts(gaap: Concepts): Concepts {
  const usd = (concept: string): Fact[] => gaap[concept]?.units['USD'] ?? [];
  const key = (f: Fact): string => `${f.start ?? ''}|${f.end}|${f.accn}`;
  const indexed = (concept: string): Map<string, Fact> => new Map(usd(concept).map((f) => [key(f), f]));
  const lessShare = (total: string, share: string): Fact[] => {
    const shares = indexed(share);
    return usd(total).map((f) => ({ ...f, val: f.val - (shares.get(key(f))?.val ?? 0) }));
  };
  const restricted = new Set(RESTRICTED_CASH.flatMap((c) => usd(c).filter((f) => f.val > 0).map(key)));
  const debtIndex = new Map(DEBT_CONCEPTS.map((c) => [c, indexed(c)] as const));
  const dates = new Map<string, Fact>();
  for (const index of debtIndex.values()) for (const [k, f] of index) if (f.start === undefined && !dates.has(k)) dates.set(k, f);
  const borrowings: Fact[] = [];
  for (const [k, f] of dates) {
    const debt = debtOf((concepts) => {
      for (const c of concepts) {
        const at = debtIndex.get(c as (typeof DEBT_CONCEPTS)[number])?.get(k) ?? usd(c).find((x) => key(x) === k);
        if (at) return at.val;
      }
      return null;
    });
    if (debt !== null) borrowings.push({ ...f, val: debt });
  }
  const line = (facts: Fact[]): Concepts[string] => ({ label: '', description: '', units: { USD: facts } });
  return {
    [DERIVED.ownersProfit]: line(lessShare('ProfitLoss', 'NetIncomeLossAttributableToNoncontrollingInterest')),
    [DERIVED.ownersEquity]: line(lessShare('StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest', 'MinorityInterest')),
    [DERIVED.cash]: line(usd(CASH_WITH_RESTRICTED).filter((f) => f.start === undefined && !restricted.has(key(f)))),
    [DERIVED.borrowings]: line(borrowings),
  };
}

export function foreignFacts(facts: { dei?: Concepts; 'us-gaap'?: Concepts }, f: ForeignFiler): { dei: Concepts; 'ifrs-full': Concepts } {
  const form = (fact: Fact): Fact | null => {
    if (fact.form === '10-K' || fact.form === '10-K/A') return { ...fact, form: foreignForm(fact.form, f) };
    if (fact.form !== '10-Q' || fact.fp !== 'Q2') return null;
    // A half-year: balances, and flows over about six months (160 to 200 days, as the SEC reader
    // takes a second quarter's year to date: Costco's 12-and-12-week half-year is 167 days).
    if (fact.start !== undefined) {
      const days = (Date.parse(fact.end) - Date.parse(fact.start)) / DAY_MS;
      if (days < 160 || days > 200) return null;
    }
    const { frame: _frame, ...rest } = fact;
    return { ...rest, fp: 'H1', form: '6-K' };
  };
  const unitOf = (u: string): string => (u === 'USD' ? f.currency : u === 'USD/shares' ? `${f.currency}/shares` : u);
  const convert = (u: string, val: number): number => (u === 'USD' ? Math.round(val * f.perUsd) : u === 'USD/shares' ? Math.round(val * f.perUsd * 100) / 100 : val);
  const ifrs: Concepts = {};
  const usd: { element: string; unit: string; fact: Fact }[] = [];
  const gaap = facts['us-gaap'] ?? {};
  const derived = derivedFacts(gaap);
  for (const [concept, element] of Object.entries(IFRS_OF_US_GAAP)) {
    const body = gaap[concept] ?? derived[concept];
    if (body === undefined) continue;
    // Concepts a template moved between over the years (revenue) merge into the one element, in
    // the reader's order: a period a concept earlier in the table already gave is not repeated.
    const entry = (ifrs[element] ??= { label: body.label || element, description: body.description, units: {} });
    for (const [u, list] of Object.entries(body.units)) {
      const target = (entry.units[unitOf(u)] ??= []);
      const seen = new Set(target.map((x) => `${x.start ?? ''}|${x.end}|${x.accn}`));
      for (const fact of list) {
        const kept = form(fact);
        if (kept === null || seen.has(`${kept.start ?? ''}|${kept.end}|${kept.accn}`)) continue;
        target.push({ ...kept, val: convert(u, kept.val) });
        if (f.convenience && f.currency !== 'USD' && (u === 'USD' || u === 'USD/shares')) usd.push({ element, unit: u, fact: kept });
      }
      if (target.length === 0) delete entry.units[unitOf(u)];
    }
    if (Object.keys(entry.units).length === 0) delete ifrs[element];
  }
  // The USD convenience translation: the template's own USD figures of each filing's own period
  // (the latest end among the filing's facts), beside the converted ones.
  const ownEnd = new Map<string, string>();
  for (const { fact } of usd) if ((ownEnd.get(fact.accn) ?? '') < fact.end) ownEnd.set(fact.accn, fact.end);
  for (const { element, unit, fact } of usd) {
    const entry = ifrs[element];
    if (entry === undefined || fact.end !== ownEnd.get(fact.accn)) continue;
    (entry.units[unit] ??= []).push(fact);
  }
  const dei: Concepts = {};
  for (const [concept, body] of Object.entries(facts.dei ?? {})) {
    dei[concept] = { ...body, units: Object.fromEntries(Object.entries(body.units).map(([u, list]) => [u, list.map((x) => ({ ...x, form: foreignForm(x.form, f) }))])) };
  }
  return { dei, 'ifrs-full': ifrs };
}

/** The periodic and current reports whose facts companyfacts carries (what a constructed submissions lists). */
const FACT_FORMS = new Set(['10-K', '10-K/A', '10-Q', '10-Q/A', '8-K', '8-K/A']);

/**
 * CONSTRUCTED for a template without recorded submissions: the submissions answer's fields the
 * service and the replica read (`sic`, `sicDescription`, `exchanges`, `fiscalYearEnd`,
 * `filings.recent`), from the template's `placement` and its facts. The filings are those the
 * facts come from, newest first: accession, filing date, form and report date (the latest period
 * end among the filing's us-gaap facts); the fiscal year end is the month and day of the latest
 * twelve-month period of a 10-K.
 */
export function constructedSubmissions(template: UsTemplate): Record<string, unknown> {
  const { placement } = template;
  if (placement === undefined) throw new Error(`template ${template.ticker}: no recorded submissions and no placement`);
  const body = realJson<{ cik: number | string; entityName: string; facts: { 'us-gaap'?: Concepts; dei?: Concepts } }>(template.facts);
  const filings = new Map<string, { form: string; filed: string; report: string }>();
  let yearEnd = '';
  for (const [taxonomy, concepts] of Object.entries(body.facts)) {
    for (const concept of Object.values(concepts ?? {})) {
      for (const list of Object.values(concept.units)) {
        for (const f of list) {
          if (!FACT_FORMS.has(f.form)) continue;
          const entry = filings.get(f.accn) ?? { form: f.form, filed: f.filed, report: '' };
          if (taxonomy === 'us-gaap' && f.end > entry.report) entry.report = f.end;
          filings.set(f.accn, entry);
          if (f.form === '10-K' && f.start !== undefined && f.end > yearEnd) {
            const days = (Date.parse(f.end) - Date.parse(f.start)) / DAY_MS;
            if (days >= 350 && days <= 380) yearEnd = f.end;
          }
        }
      }
    }
  }
  const rows = [...filings].sort(([a, x], [b, y]) => y.filed.localeCompare(x.filed) || b.localeCompare(a));
  return {
    cik: String(body.cik).padStart(10, '0'),
    entityType: 'operating',
    sic: placement.sic,
    sicDescription: placement.sicDescription,
    name: body.entityName,
    tickers: [template.ticker],
    exchanges: [placement.exchange],
    fiscalYearEnd: yearEnd === '' ? '' : yearEnd.slice(5, 7) + yearEnd.slice(8, 10),
    formerNames: [],
    filings: {
      recent: {
        accessionNumber: rows.map(([accn]) => accn),
        filingDate: rows.map(([, r]) => r.filed),
        reportDate: rows.map(([, r]) => r.report),
        form: rows.map(([, r]) => r.form),
      },
      files: [],
    },
  };
}

export class SecApi {
  private readonly facts = new Map<string, FactsTemplate>();
  private readonly submissions = new Map<string, Record<string, unknown>>();
  private tickersBody: string | null = null;

  constructor(
    private readonly universe: Universe,
    private readonly today: () => string,
  ) {}

  /** The key of a copy's facts: its template's file, and for a foreign filer its form and currency. */
  factsKey(c: UsCompany): string {
    return c.foreign === null ? c.template.facts : `${c.template.facts}:${c.foreign.form}:${c.foreign.currency}`;
  }

  /** The facts shared by every copy of a template (and, for foreign filers, of a form and currency). */
  factsTemplate(c: UsCompany): FactsTemplate {
    const key = this.factsKey(c);
    let t = this.facts.get(key);
    if (!t) {
      const raw = real(c.template.facts);
      const parsed = JSON.parse(raw.toString('utf8')) as { facts: { dei?: Concepts; 'us-gaap'?: Concepts } };
      const latestOf = (concept: ShareFrame): FactsTemplate['shares'][ShareFrame] => {
        const [taxonomy, tag] = concept.split('/') as ['dei' | 'us-gaap', string];
        // A foreign filer's copy has no us-gaap facts (they move to ifrs-full): its cover count only.
        if (taxonomy === 'us-gaap' && c.foreign !== null) return null;
        const all = (parsed.facts[taxonomy]?.[tag]?.units['shares'] ?? []) as Fact[];
        // The weighted average as a quarter's frame holds it: a three-month duration.
        const usable = concept === 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic' ? all.filter((f) => f.start !== undefined && (Date.parse(f.end) - Date.parse(f.start)) / DAY_MS < 100) : all;
        const latest = usable.reduce<Fact | null>((a, f) => (a === null || f.end > a.end ? f : a), null);
        return latest ? { end: latest.end, val: latest.val, accn: latest.accn } : null;
      };
      const tail = c.foreign === null ? raw.subarray(raw.indexOf('"facts"')) : Buffer.from(`"facts":${JSON.stringify(foreignFacts(parsed.facts, c.foreign))}}`, 'utf8');
      t = { tail, shares: Object.fromEntries(SHARE_FRAMES.map((f) => [f, latestOf(f)])) as FactsTemplate['shares'] };
      this.facts.set(key, t);
    }
    return t;
  }

  submissionsOf(c: UsCompany): string {
    const key = c.template.submissions ?? c.template.facts;
    let t = this.submissions.get(key);
    if (!t) {
      t = c.template.submissions === null ? constructedSubmissions(c.template) : realJson<Record<string, unknown>>(c.template.submissions);
      this.submissions.set(key, t);
    }
    const base = { ...t, cik: String(c.cik).padStart(10, '0'), name: c.title, tickers: [c.ticker], formerNames: [] };
    if (c.foreign === null) return JSON.stringify(base);
    // A foreign filer's submissions: its annual reports on 20-F (40-F), the rest of its
    // periodic reports on 6-K; no proxy statements (foreign private issuers file none).
    const filings = t['filings'] as { recent: Record<string, unknown[]>; files: unknown[] };
    const foreign = c.foreign;
    const recentForms = filings.recent['form'] ?? [];
    const keep = recentForms.map((x) => !/^(DEF|DEFA|PRE|PX)\s?14A|^PX14A6/.test(String(x)));
    const recent = Object.fromEntries(Object.entries(filings.recent).map(([k, list]) => [k, list.filter((_x, i) => keep[i])]));
    recent['form'] = (recent['form'] ?? []).map((x) => foreignForm(String(x), foreign));
    return JSON.stringify({ ...base, filings: { ...filings, recent } });
  }

  tickers(): Answer {
    this.tickersBody ??= JSON.stringify(Object.fromEntries(this.universe.us.map((c, i) => [String(i), { cik_str: c.cik, ticker: c.ticker, title: c.title }])));
    return { headers: JSON_TYPE, body: this.tickersBody };
  }

  companyFacts(cik: number): Answer | null {
    const c = this.universe.usByCik.get(cik);
    if (!c) return null;
    return { headers: JSON_TYPE, body: Buffer.concat([factsHead(c), this.factsTemplate(c).tail]) };
  }

  submissionsAnswer(cik: number): Answer | null {
    const c = this.universe.usByCik.get(cik);
    return c ? { headers: JSON_TYPE, body: this.submissionsOf(c) } : null;
  }

  /**
   * CONSTRUCTED (no frames recording at this scale): the frames API's documented shape, one row
   * per copy holding its template's latest recorded fact of the concept (`SHARE_FRAMES`), as
   * test/e2e/upstream.ts; the cover count first, so a copy of a company that files it per class
   * (Palantir, AppLovin, Figma) is in the us-gaap frames only.
   */
  sharesFrame(concept: ShareFrame, year: number, quarter: number): Answer {
    const data = this.universe.us
      .map((c) => {
        const s = this.factsTemplate(c).shares[concept];
        return s ? { accn: s.accn, cik: c.cik, entityName: c.title, end: s.end, val: s.val } : null;
      })
      .filter((r) => r !== null);
    const [taxonomy, tag] = concept.split('/') as [string, string];
    const instant = concept !== 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic';
    return json({ taxonomy, tag, ccp: `CY${year}Q${quarter}${instant ? 'I' : ''}`, uom: 'shares', label: tag, pts: data.length, data });
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
        const form = c.foreign !== null ? (month === 2 ? c.foreign.form : '6-K') : month === 2 ? '10-K' : '10-Q';
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
// ECB euro reference rates (CONSTRUCTED values in the real file's layout: the header of the
// recorded eurofxref-hist.csv, test/fixtures/real/ecb, column for column with its trailing comma;
// one row per weekday but 1 January and 25-26 December, newest first, up to the day before
// `today`; USD, JPY and CAD per EUR on a deterministic path around the rates the replica's foreign
// filers convert their facts at (FOREIGN_FILERS: 0.92 EUR, 150 JPY, 1.36 CAD a dollar), every
// other column N/A. TWD, as in the real file, is not among them.)

const ECB_HEADER = 'Date,USD,JPY,BGN,CYP,CZK,DKK,EEK,GBP,HUF,LTL,LVL,MTL,PLN,ROL,RON,SEK,SIT,SKK,CHF,ISK,NOK,HRK,RUB,TRL,TRY,AUD,BRL,CAD,CNY,HKD,IDR,ILS,INR,KRW,MXN,MYR,NZD,PHP,SGD,THB,ZAR,';
const ECB_FIRST_DAY = '2009-01-02';
let ecbCache: { today: string; zip: Uint8Array } | null = null;

/** eurofxref-hist.zip as the replica serves it on `today`. */
export function ecbRatesZip(today: string): Answer {
  if (ecbCache?.today !== today) {
    const columns = ECB_HEADER.split(',').slice(1, -1);
    const lines = [ECB_HEADER];
    for (let d = epochDay(today) - 1; d >= epochDay(ECB_FIRST_DAY); d--) {
      const iso = isoOfDay(d);
      if (!isWeekday(d) || /-(01-01|12-25|12-26)$/.test(iso)) continue;
      const usd = (1 / 0.92) * (1 + 0.04 * Math.sin(d / 250));
      const value: Record<string, string> = { USD: usd.toFixed(4), JPY: (150 * usd).toFixed(2), CAD: (1.36 * usd * (1 + 0.02 * Math.sin(d / 90))).toFixed(4) };
      lines.push(`${iso},${columns.map((c) => value[c] ?? 'N/A').join(',')},`);
    }
    ecbCache = { today, zip: zipOne('eurofxref-hist.csv', `${lines.join('\n')}\n`) };
  }
  return { headers: { 'content-type': 'application/zip' }, body: ecbCache.zip };
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
