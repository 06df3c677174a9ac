// Parsers for OpenDART (https://opendart.fss.or.kr): the company list (corpCode.xml inside a
// ZIP), the periodic-disclosure search (list.json) and the full financial statements of one
// company and report (fnlttSinglAcntAll.json). Pure functions over the upstream's own text.

import type { FinancialReport, FiscalQuarter, Security } from '../../domain/model.js';
import { isRecord, lastDayOfMonth, parseAmount, str, toIsoDate } from '../shared/parse.js';
import { readFlatXml } from '../shared/xml.js';
import { sectorForKsic, UNCLASSIFIED } from './sectors.js';

export const SOURCE_NAME = 'opendart';

export interface CorpCode {
  corpCode: string;
  corpName: string;
  /** `corp_eng_name`; empty when the list gives none. */
  corpNameEn: string;
  stockCode: string;
  modifyDate: string;
}

/**
 * corpCode.xml: `<result><list><corp_code/><corp_name/><corp_eng_name/><stock_code/><modify_date/></list>...`.
 * Unlisted companies carry a single space as stock_code; we keep listed ones (six digits).
 * Throws when the document is not well-formed (a truncated download must not pass as a short list).
 */
export function parseCorpCodeXml(xml: string): CorpCode[] {
  return readFlatXml(xml, 'list')
    .records
    .map((r) => ({
      corpCode: r['corp_code'] ?? '',
      corpName: r['corp_name'] ?? '',
      corpNameEn: (r['corp_eng_name'] ?? '').trim(),
      stockCode: r['stock_code'] ?? '',
      modifyDate: toIsoDate(r['modify_date'] ?? '') ?? '',
    }))
    .filter((c) => /^\d{8}$/.test(c.corpCode) && /^\d{6}$/.test(c.stockCode));
}

/** OpenDART status codes we act on (the guide's message table). */
export const DART_STATUS = { OK: '000', NO_DATA: '013', RATE_LIMIT: '020' } as const;

export interface DartEnvelope {
  status: string;
  message: string;
  list: Record<string, unknown>[];
  pageNo: number;
  totalPage: number;
}

/** The common JSON envelope: `{status, message, [page_no, total_page, ...], list: [...]}`. */
export function parseDartEnvelope(body: unknown): DartEnvelope | null {
  if (!isRecord(body) || typeof body['status'] !== 'string') return null;
  const list = Array.isArray(body['list']) ? body['list'].filter(isRecord) : [];
  return {
    status: body['status'],
    message: str(body, 'message'),
    list,
    pageNo: Number(body['page_no'] ?? 1) || 1,
    totalPage: Number(body['total_page'] ?? 1) || 1,
  };
}

export type DartReportCode = '11013' | '11012' | '11014' | '11011';
export const REPORT_CODE_BY_QUARTER: Record<FiscalQuarter, DartReportCode> = { 1: '11013', 2: '11012', 3: '11014', 4: '11011' };

export interface PeriodicFiling {
  corpCode: string;
  stockCode: string;
  /** The filer's name and market class as the filing list gives them (corp_cls Y/K/N/E). */
  corpName: string;
  corpCls: string;
  rceptNo: string;
  disclosedOn: string;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  reprtCode: DartReportCode;
  correction: boolean;
}

/** What a list.json row of a periodic report says, whatever the company's fiscal year end. */
export interface FilingPeriod {
  corpCode: string;
  stockCode: string;
  rceptNo: string;
  disclosedOn: string;
  /** 사업 (annual), 반기 (half-year) or 분기 (first or third quarter). */
  kind: '사업' | '반기' | '분기';
  /** The last day of the month report_nm names: `분기보고서 (2024.09)` is 2024-09-30. */
  periodEnd: string;
  correction: boolean;
}

/**
 * A list.json row of a periodic report: report_nm reads e.g. `분기보고서 (2024.09)`,
 * `반기보고서 (2024.06)`, `사업보고서 (2023.12)`, with a `[기재정정]` prefix for a corrected
 * filing. Null for any other report.
 */
export function parseFilingPeriod(row: Record<string, unknown>): FilingPeriod | null {
  const name = str(row, 'report_nm').replace(/\s+/g, ' ').trim();
  const m = /(사업|반기|분기)보고서 \((\d{4})\.(\d{2})\)/.exec(name);
  const disclosedOn = toIsoDate(str(row, 'rcept_dt')) ?? toIsoDate(str(row, 'rcept_no').slice(0, 8));
  const month = Number(m?.[3]);
  if (!m || disclosedOn === null || month < 1 || month > 12) return null;
  return {
    corpCode: str(row, 'corp_code'),
    stockCode: str(row, 'stock_code').trim(),
    rceptNo: str(row, 'rcept_no'),
    disclosedOn,
    kind: m[1] as FilingPeriod['kind'],
    periodEnd: lastDayOfMonth(Number(m[2]), month),
    correction: name.includes('정정'),
  };
}

/**
 * A list.json row of a periodic report as the API path takes it: 분기보고서 covers Q1 and Q3;
 * the month tells which, assuming a December year end (nearly all KOSPI/KOSDAQ companies);
 * other months are skipped (returns null).
 */
export function parsePeriodicFiling(row: Record<string, unknown>): PeriodicFiling | null {
  const period = parseFilingPeriod(row);
  if (period === null) return null;
  const year = Number(period.periodEnd.slice(0, 4));
  const month = Number(period.periodEnd.slice(5, 7));
  let fiscalQuarter: FiscalQuarter | null = null;
  if (period.kind === '사업' && month === 12) fiscalQuarter = 4;
  else if (period.kind === '반기' && month === 6) fiscalQuarter = 2;
  else if (period.kind === '분기' && month === 3) fiscalQuarter = 1;
  else if (period.kind === '분기' && month === 9) fiscalQuarter = 3;
  if (fiscalQuarter === null) return null;
  return {
    corpCode: period.corpCode,
    stockCode: period.stockCode,
    corpName: str(row, 'corp_name').trim(),
    corpCls: str(row, 'corp_cls').trim(),
    rceptNo: period.rceptNo,
    disclosedOn: period.disclosedOn,
    fiscalYear: year,
    fiscalQuarter,
    periodEnd: period.periodEnd,
    reprtCode: REPORT_CODE_BY_QUARTER[fiscalQuarter],
    correction: period.correction,
  };
}

/** When each company's periodic reports became public, by stock code and period end. */
export interface FilingDateIndex {
  /** The earliest receipt date of a report for the stock code and period end; null when the list has none. */
  knowledgeDate(key: { stockCode: string; periodEnd: string }): string | null;
  /** (stock code, period end) pairs known. */
  size: number;
  /**
   * Pairs with a correction received after the first filing. The bulk files hold the latest
   * figures, so for these a report dated at the first filing may carry corrected values early.
   */
  corrected: number;
}

/** The index of filing periods: the earliest rcept_dt per stock code and period end. */
export function filingDateIndex(periods: Iterable<FilingPeriod>): FilingDateIndex {
  const first = new Map<string, string>();
  const last = new Map<string, string>();
  const corrected = new Set<string>();
  for (const p of periods) {
    if (!/^\d{6}$/.test(p.stockCode)) continue;
    const key = `${p.stockCode}|${p.periodEnd}`;
    if ((first.get(key) ?? '9999') > p.disclosedOn) first.set(key, p.disclosedOn);
    if ((last.get(key) ?? '') < p.disclosedOn) last.set(key, p.disclosedOn);
    if (p.correction) corrected.add(key);
  }
  return {
    knowledgeDate: ({ stockCode, periodEnd }) => first.get(`${stockCode}|${periodEnd}`) ?? null,
    size: first.size,
    corrected: [...corrected].filter((k) => (last.get(k) ?? '') > (first.get(k) ?? '')).length,
  };
}

/**
 * One line of a financial statement as both ways in give it: the API's fnlttSinglAcntAll rows
 * and the bulk files' rows (src/sources/opendart/bulk.ts). Built by `statementRow`, so the two
 * readers hand the one mapping (`reportFromRows`) the same normalised values.
 */
export interface StatementRow {
  /** BS, IS (a separate income statement), CIS (comprehensive income), CF; other statements are not mapped. */
  sjDiv: string;
  /** The account id with `ifrs_X` (the older taxonomy prefix) written `ifrs-full_X`. */
  accountId: string;
  /** The label without any whitespace (the bulk files indent labels to show depth). */
  accountNm: string;
  /** The current period's amount: for quarterly income statements, the three months alone. */
  thstrmAmount: number | null;
  /** Quarterly income statements only: the year-to-date amount. */
  thstrmAddAmount: number | null;
}

/** `ifrs_Revenue` and `ifrs-full_Revenue` are the same concept (taxonomy years before and after 2018/2019). */
export const normaliseAccountId = (id: string): string => {
  const trimmed = id.trim();
  return trimmed.startsWith('ifrs_') ? `ifrs-full_${trimmed.slice('ifrs_'.length)}` : trimmed;
};

/** A StatementRow from raw cells: the one place ids and labels are normalised and amounts parsed. */
/**
 * A row's label as the rules match it: without spaces and without the outline number a filer may
 * put in front (`Ⅵ.당기순이익`, `1. 금융수익`, `(1)매출액`, `가.이자비용`), which real statements
 * carry on rows filed under the filer's own account code.
 */
export function accountLabel(label: string): string {
  return label.replace(/\s+/g, '').replace(/^(?:(?:[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫ]+|[IVX]+|\d{1,2}|[가나다라마바사아자차카타파하])[.)]|\(\d{1,2}\))/u, '');
}

export function statementRow(raw: {
  sjDiv: string;
  accountId: string;
  accountNm: string;
  thstrmAmount: string | null;
  thstrmAddAmount: string | null;
}): StatementRow {
  return {
    sjDiv: raw.sjDiv.trim(),
    accountId: normaliseAccountId(raw.accountId),
    accountNm: accountLabel(raw.accountNm),
    thstrmAmount: parseAmount(raw.thstrmAmount),
    thstrmAddAmount: parseAmount(raw.thstrmAddAmount),
  };
}

function statementRows(list: Record<string, unknown>[]): StatementRow[] {
  return list.map((r) =>
    statementRow({
      sjDiv: str(r, 'sj_div'),
      accountId: str(r, 'account_id'),
      accountNm: str(r, 'account_nm'),
      thstrmAmount: str(r, 'thstrm_amount'),
      // Only quarterly income statements carry it; absent elsewhere.
      thstrmAddAmount: str(r, 'thstrm_add_amount'),
    }),
  );
}

type Item = Exclude<keyof FinancialReport, 'market' | 'code' | 'fiscalYear' | 'fiscalQuarter' | 'periodEnd' | 'disclosedOn' | 'consolidated' | 'source'>;

interface Rule {
  item: Item;
  /** Statements to look in, in order of preference. */
  sj: readonly string[];
  ids: readonly string[];
  /** Korean labels for rows filed without a standard account_id ("-표준계정코드 미사용-"). */
  names?: readonly string[];
  abs?: boolean;
}

const INCOME = ['IS', 'CIS'] as const;

// Account ids are normalised (`ifrs_X` is read as `ifrs-full_X`, see `statementRow`), so each
// rule names the `ifrs-full_` form only. An item with several rules takes the first that finds a
// value, in the order listed.
const RULES: readonly Rule[] = [
  { item: 'revenue', sj: INCOME, ids: ['ifrs-full_Revenue'], names: ['매출액', '수익(매출액)', '영업수익', '매출'] },
  // Not 영업비용: that is total operating expenses (financial and service companies file it
  // instead of a cost of sales), and taking it made CCC and margins of such companies wrong.
  { item: 'costOfSales', sj: INCOME, ids: ['ifrs-full_CostOfSales'], names: ['매출원가'] },
  // The financial layouts (은행, 보험, 증권, 금융기타) file operating profit as
  // ifrs-full_ProfitLossFromOperatingActivities, some labelled 영업손익 (제주은행).
  { item: 'operatingIncome', sj: INCOME, ids: ['dart_OperatingIncomeLoss', 'ifrs-full_ProfitLossFromOperatingActivities'], names: ['영업이익', '영업이익(손실)', '영업손익'] },
  { item: 'netIncome', sj: INCOME, ids: ['ifrs-full_ProfitLossAttributableToOwnersOfParent'], names: ['지배기업의소유주에게귀속되는당기순이익(손실)', '지배기업소유주지분'] },
  { item: 'interestExpense', sj: INCOME, ids: ['ifrs-full_InterestExpense', 'dart_InterestExpenseFinanceExpense'], names: ['이자비용'], abs: true },
  // Where the income statement has no interest line of its own (most Korean filers put it inside
  // finance costs, 금융원가, and state it in the notes), the indirect cash-flow statement's: first
  // the interest expense added back to profit (the period's accrued expense), else the interest
  // paid (operating or financing), the cash proxy. Both year to date, like every cash-flow row.
  { item: 'interestExpense', sj: ['CF'], ids: ['dart_AdjustmentsForInterestExpenses'], names: ['이자비용조정', '이자비용'], abs: true },
  {
    item: 'interestExpense',
    sj: ['CF'],
    ids: ['ifrs-full_InterestPaidClassifiedAsOperatingActivities', 'ifrs-full_InterestPaidClassifiedAsFinancingActivities'],
    names: ['이자의지급', '이자지급', '이자지급(영업)', '이자의지급(영업)', '이자지급(재무)', '이자의지급(재무)'],
    abs: true,
  },
  // Basic EPS in won per share; the label set covers rows filed without the standard id and
  // filers that state one figure for basic and diluted.
  {
    item: 'basicEps',
    sj: INCOME,
    ids: ['ifrs-full_BasicEarningsLossPerShare', 'ifrs-full_BasicAndDilutedEarningsLossPerShare'],
    names: ['기본주당이익(손실)', '기본주당이익', '기본주당순이익(손실)', '기본주당순이익', '기본및희석주당이익(손실)', '기본및희석주당이익', '기본및희석주당순이익(손실)', '기본및희석주당순이익'].flatMap((n) => [n, `${n}(단위:원)`]),
  },
  { item: 'operatingCashFlow', sj: ['CF'], ids: ['ifrs-full_CashFlowsFromUsedInOperatingActivities'], names: ['영업활동현금흐름', '영업활동으로인한현금흐름'] },
  // Purchases of PP&E under the plain or the investing-activities concept; a filer with no line
  // of its own for it files its parts (`PPE_PARTS`, summed by `partsCapexOf`).
  {
    item: 'capex',
    sj: ['CF'],
    ids: ['ifrs-full_PurchaseOfPropertyPlantAndEquipment', 'ifrs-full_PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities'],
    names: ['유형자산의취득', '투자활동으로분류된유형자산의취득', '유형자산취득'],
    abs: true,
  },
  { item: 'totalAssets', sj: ['BS'], ids: ['ifrs-full_Assets'], names: ['자산총계'] },
  { item: 'currentAssets', sj: ['BS'], ids: ['ifrs-full_CurrentAssets'], names: ['유동자산'] },
  { item: 'totalLiabilities', sj: ['BS'], ids: ['ifrs-full_Liabilities'], names: ['부채총계'] },
  { item: 'currentLiabilities', sj: ['BS'], ids: ['ifrs-full_CurrentLiabilities'], names: ['유동부채'] },
  { item: 'equity', sj: ['BS'], ids: ['ifrs-full_EquityAttributableToOwnersOfParent'], names: ['지배기업의소유주에게귀속되는자본', '지배기업소유주지분'] },
  { item: 'cash', sj: ['BS'], ids: ['ifrs-full_CashAndCashEquivalents'], names: ['현금및현금성자산'] },
  { item: 'receivables', sj: ['BS'], ids: ['ifrs-full_TradeAndOtherCurrentReceivables', 'ifrs-full_CurrentTradeReceivables', 'dart_ShortTermTradeReceivable'], names: ['매출채권', '매출채권및기타채권'] },
  { item: 'inventory', sj: ['BS'], ids: ['ifrs-full_Inventories'], names: ['재고자산'] },
  { item: 'payables', sj: ['BS'], ids: ['ifrs-full_TradeAndOtherCurrentPayables', 'ifrs-full_CurrentTradePayables', 'dart_ShortTermTradePayables'], names: ['매입채무', '매입채무및기타채무'] },
];

/**
 * Purchases of the parts of PP&E, for a filer with no whole-PP&E purchase line: the `other PP&E`
 * concept (기타유형자산의 취득) and the classes DART has concepts for (토지, 기계장치, 차량운반구,
 * 비품, 집기, 건설중인자산), by id or by label (`PPE_PART_LABEL`). AP위성 2025 Q1 files
 * 건설중인자산의 취득 78,150,000, 집기의 취득 281,093,991 and 기타유형자산의 취득 2,900,000.
 */
const PPE_PARTS: Rule = {
  item: 'capex',
  sj: ['CF'],
  ids: [
    'dart_PurchaseOfOtherPropertyPlantAndEquipment',
    'dart_PurchaseOfLand',
    'dart_PurchaseOfMachinery',
    'dart_PurchaseOfVehicles',
    'dart_PurchaseOfOfficeEquipment',
    'dart_PurchaseOfFixturesAndFittings',
    'dart_PurchaseOfConstructionInProgress',
  ],
  names: ['기타유형자산의취득'],
  abs: true,
};
/** Labels (spaces removed) of a PP&E class purchase: 토지의취득, 비품의취득, 건설중인자산의취득, ... */
const PPE_PART_LABEL = /^(기타유형자산|토지|건물|구축물|기계장치|차량운반구|비품|사무용비품|집기|집기비품|공구와기구|공구기구|건설중인자산|시설장치|선박|항공기)의?(취득|구입)$/;

/** The sum of the PP&E part purchases in the cash-flow statement (year to date), or null when none is filed. */
function partsCapexOf(rows: readonly StatementRow[]): number | null {
  let total: number | null = null;
  for (const r of rows) {
    if (r.sjDiv !== 'CF' || r.thstrmAmount === null) continue;
    if (PPE_PARTS.ids.includes(r.accountId) || PPE_PART_LABEL.test(r.accountNm)) total = (total ?? 0) + Math.abs(r.thstrmAmount);
  }
  return total;
}

/**
 * Profit for the period and total equity: taken when there is no controlling/non-controlling
 * split (separate statements, or a consolidated filer without minority interests).
 */
const PROFIT_FALLBACK: Rule = { item: 'netIncome', sj: INCOME, ids: ['ifrs-full_ProfitLoss'], names: ['당기순이익', '당기순이익(손실)', '분기순이익', '반기순이익'] };
const EQUITY_FALLBACK: Rule = { item: 'equity', sj: ['BS'], ids: ['ifrs-full_Equity'], names: ['자본총계'] };

/**
 * Interest-bearing debt on the balance sheet: every borrowing and bond line, current and
 * non-current, whatever its account id. Real filings carry these under many concepts
 * (short-term borrowings, the current portion of long-term borrowings or of bonds, a combined
 * current-borrowings concept, non-current loans received, bonds issued, convertible and
 * exchangeable bonds) and often without a standard id at all (`-표준계정코드 미사용-`, e.g.
 * Samsung Electronics' 단기차입금 of FY2023), so a row is debt when its id is one of these or
 * its label names a borrowing or a bond.
 */
const DEBT_IDS: ReadonlySet<string> = new Set([
  'ifrs-full_ShorttermBorrowings',
  'ifrs-full_ShortTermBorrowings',
  'ifrs-full_CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings',
  'ifrs-full_CurrentPortionOfLongtermBorrowings',
  'ifrs-full_CurrentPortionOfNoncurrentBorrowings',
  'ifrs-full_CurrentPortionOfNoncurrentLoansReceived',
  'ifrs-full_LongtermBorrowings',
  'ifrs-full_NoncurrentPortionOfNoncurrentBorrowings',
  'ifrs-full_NoncurrentPortionOfNoncurrentLoansReceived',
  'ifrs-full_BondsIssued',
  'ifrs-full_CurrentPortionOfBondsIssued',
  'ifrs-full_CurrentBondsIssuedAndCurrentPortionOfNoncurrentBondsIssued',
  'ifrs-full_NoncurrentPortionOfNoncurrentBondsIssued',
  'ifrs-full_ConvertibleBonds',
  'dart_ShortTermBorrowings',
  'dart_CurrentPortionOfLongTermBorrowings',
  'dart_LongTermBorrowingsGross',
  'dart_BondsIssued',
  'dart_CurrentPortionOfBonds',
  'dart_ConvertibleBonds',
  'dart_CurrentPortionOfConvertibleBonds',
  'dart_ExchangeableBonds',
  'dart_BondsWithWarrants',
]);

/** Labels (spaces removed) of borrowings and bonds: 단기차입금, 유동성장기부채, 사채, 전환사채, 교환사채, 신주인수권부사채, ... */
const DEBT_LABEL = /차입금|사채|유동성장기부채/;
/**
 * Lines whose label mentions a borrowing or a bond but are not one: lease liabilities (not
 * borrowings here), accrued interest, provisions, guarantees, and the contra accounts below.
 */
const NOT_DEBT_LABEL = /리스|이자|충당|보증|미지급|선수|예수|파생|채권$|대여/;
/**
 * Concept names (the part after the prefix, `entity00365387_...` included) of borrowings and
 * bonds, for rows whose label names neither: `OtherCurrentBorrowings...`, `...LoansReceived`,
 * `...BondsIssued`, `ConvertibleBonds`. Not leases, interest, derivatives or receivables.
 */
const DEBT_ID_WORDS = /Borrowings|LoansReceived|BondsIssued|ConvertibleBonds|ExchangeableBonds|BondsWithWarrants|Debentures/;
const NOT_DEBT_ID_WORDS = /Lease|Interest|Derivative|Receivable|Payable|Provision|Guarantee|Adjustment|Discount|Premium/;

/** An account id without its prefix (`ifrs-full_`, `dart_`, `entity00365387_`). */
const localName = (id: string): string => id.replace(/^[^_]*_/, '');

/**
 * The concept a row is filed as: the local name, for a filer's own id without the parent it
 * names (`entity00265324_CurrentLoansReceivedOfCurrentLiabilities` is `CurrentLoansReceived`;
 * `..._CallMoneyOfBorrowings`, a part of borrowings, is `CallMoney`).
 */
const conceptOf = (id: string): string => (id.startsWith('entity') ? localName(id).replace(/Of[A-Z]\w*$/, '') : localName(id));

/** Whether a row's concept (`conceptOf`) names a borrowing or a bond. */
function isDebtConcept(r: StatementRow): boolean {
  const concept = conceptOf(r.accountId);
  return DEBT_ID_WORDS.test(concept) && !NOT_DEBT_ID_WORDS.test(concept);
}

/** Contra and premium accounts of bonds: carried beside the face amount, they adjust it. */
const BOND_DISCOUNT_LABEL = /할인발행차금|전환권조정|신주인수권조정|교환권조정/;
const BOND_PREMIUM_LABEL = /상환할증금|할증발행차금/;

/**
 * How a balance-sheet row counts towards debt: its amount as it is, as a negative (a bond
 * discount or conversion adjustment), as a positive (a redemption premium), or not at all.
 */
function debtSign(r: StatementRow): 'as-is' | 'minus' | 'plus' | null {
  if (r.sjDiv !== 'BS') return null;
  const label = r.accountNm;
  if (BOND_DISCOUNT_LABEL.test(label)) return 'minus';
  if (BOND_PREMIUM_LABEL.test(label)) return 'plus';
  if (DEBT_IDS.has(r.accountId) || (DEBT_LABEL.test(label) && !NOT_DEBT_LABEL.test(label))) return 'as-is';
  // A filer's own id (`entity..._`) names its concept; the standard ids are the list above.
  if (r.accountId.startsWith('entity') && isDebtConcept(r) && !NOT_DEBT_LABEL.test(label)) return 'as-is';
  return null;
}

/** The carrying amount of interest-bearing debt, or null when the statements show no such line. */
function debtOf(rows: readonly StatementRow[]): number | null {
  let total: number | null = null;
  for (const r of rows) {
    const sign = debtSign(r);
    if (sign === null || r.thstrmAmount === null) continue;
    const signed = sign === 'minus' ? -Math.abs(r.thstrmAmount) : sign === 'plus' ? Math.abs(r.thstrmAmount) : r.thstrmAmount;
    total = (total ?? 0) + signed;
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// Absence proven by a complete section (docs/calculations.md, "Debt"; docs/sources.md, opendart).
// A statement's rows come in statement order, each subtotal before its items (the API's
// fnlttSinglAcntAll answers and the bulk files alike), so a section is its head row (유동부채,
// 비유동부채, 유동자산, 투자활동현금흐름, ...) and the rows after it up to the next head. The section is
// complete when its lines add up to its head; an item it does not list is then 0, not unknown.

/** The sections the absence rules read, and the other heads that end a section. */
type SectionKind = 'currentAssets' | 'currentLiabilities' | 'nonCurrentLiabilities' | 'liabilities' | 'investing' | 'other';

interface SectionHead {
  kind: SectionKind;
  sj: 'BS' | 'CF';
  ids: readonly string[];
  names: readonly string[];
}

const SECTION_HEADS: readonly SectionHead[] = [
  { kind: 'currentAssets', sj: 'BS', ids: ['ifrs-full_CurrentAssets'], names: ['유동자산'] },
  { kind: 'currentLiabilities', sj: 'BS', ids: ['ifrs-full_CurrentLiabilities'], names: ['유동부채'] },
  { kind: 'nonCurrentLiabilities', sj: 'BS', ids: ['ifrs-full_NoncurrentLiabilities'], names: ['비유동부채'] },
  { kind: 'liabilities', sj: 'BS', ids: ['ifrs-full_Liabilities'], names: ['부채총계'] },
  {
    kind: 'other',
    sj: 'BS',
    ids: ['ifrs-full_Assets', 'ifrs-full_NoncurrentAssets', 'ifrs-full_Equity', 'ifrs-full_EquityAndLiabilities', 'ifrs-full_EquityAttributableToOwnersOfParent'],
    names: ['자산총계', '비유동자산', '자본총계', '자본과부채총계', '부채와자본총계', '자본'],
  },
  { kind: 'investing', sj: 'CF', ids: ['ifrs-full_CashFlowsFromUsedInInvestingActivities'], names: ['투자활동현금흐름', '투자활동으로인한현금흐름'] },
  {
    kind: 'other',
    sj: 'CF',
    ids: [
      'ifrs-full_CashFlowsFromUsedInOperatingActivities',
      'ifrs-full_CashFlowsFromUsedInFinancingActivities',
      'ifrs-full_EffectOfExchangeRateChangesOnCashAndCashEquivalents',
      'ifrs-full_IncreaseDecreaseInCashAndCashEquivalents',
      'ifrs-full_IncreaseDecreaseInCashAndCashEquivalentsBeforeEffectOfExchangeRateChanges',
      'dart_CashAndCashEquivalentsAtBeginningOfPeriodCf',
      'dart_CashAndCashEquivalentsAtEndOfPeriodCf',
    ],
    names: ['영업활동현금흐름', '영업활동으로인한현금흐름', '재무활동현금흐름', '재무활동으로인한현금흐름'],
  },
];

/** The section a row opens, or null when it is a line within one. */
export function sectionHeadOf(r: StatementRow): SectionKind | null {
  for (const h of SECTION_HEADS) {
    if (h.sj === r.sjDiv && (h.ids.includes(r.accountId) || h.names.includes(r.accountNm))) return h.kind;
  }
  // The cash-flow statement's closing lines: 현금및현금성자산의 증감, 기초/기말 현금및현금성자산, 환율변동효과.
  if (r.sjDiv === 'CF' && r.accountNm.includes('현금및현금성자산')) return 'other';
  return null;
}

/** Whether the absence rules read rows of this section (a bulk reader keeps its lines). */
export const isCheckedSection = (kind: SectionKind | null): boolean => kind !== null && kind !== 'other';

/** A filer's own id naming the section it is a line of: `entity00149026_NetDefinedBenefitLiabilityOfNoncurrentLiabilities`. */
const PARENT_SECTION = /Of(CurrentAssets|CurrentLiabilities|NoncurrentLiabilities|CashFlowsFromUsedInInvestingActivities)(?=Of|$)/i;
const SECTION_OF_PARENT: Readonly<Record<string, SectionKind>> = {
  currentassets: 'currentAssets',
  currentliabilities: 'currentLiabilities',
  noncurrentliabilities: 'nonCurrentLiabilities',
  cashflowsfromusedininvestingactivities: 'investing',
};

/**
 * The section a filer's own line names as its parent, or null. The bulk files may put such a
 * line away from its section (CS홀딩스 2025 Q1: 순확정급여부채 411,520,471 first in its block, before
 * 자산총계), so the name, not the place, decides.
 */
export function namedSectionOf(r: StatementRow): SectionKind | null {
  if (!r.accountId.startsWith('entity')) return null;
  const parent = PARENT_SECTION.exec(localName(r.accountId))?.[1];
  return parent === undefined ? null : (SECTION_OF_PARENT[parent.toLowerCase()] ?? null);
}

interface Section {
  head: StatementRow;
  lines: StatementRow[];
}

/**
 * The sections of one statement: each head with the lines after it up to the next head, and
 * the filer's own lines that name a section (`namedSectionOf`) wherever they are.
 */
function sectionsOf(rows: readonly StatementRow[], sj: 'BS' | 'CF'): Map<SectionKind, Section> {
  const heads = new Map<SectionKind, StatementRow>();
  const lines = new Map<SectionKind, StatementRow[]>();
  let current: SectionKind | null = null;
  let repeated = false;
  for (const r of rows) {
    if (r.sjDiv !== sj) continue;
    const kind = sectionHeadOf(r);
    if (kind !== null) {
      // The first of a kind: a later head of the same kind (a repeated total) and its lines add nothing.
      repeated = heads.has(kind) && kind !== 'other';
      if (!heads.has(kind)) heads.set(kind, r);
      current = kind;
      continue;
    }
    const named = namedSectionOf(r);
    const of = named ?? (repeated ? null : current);
    if (of === null) continue;
    const list = lines.get(of) ?? [];
    list.push(r);
    lines.set(of, list);
  }
  const out = new Map<SectionKind, Section>();
  for (const [kind, head] of heads) if (kind !== 'other') out.set(kind, { head, lines: lines.get(kind) ?? [] });
  return out;
}

/**
 * The rounding a filing's amounts allow: one unit of the largest power of ten (up to a million
 * won) that divides every amount given, as filers state figures in won, thousands or millions.
 */
function roundingOf(values: readonly number[]): number {
  let unit = 1_000_000;
  for (const v of values) {
    while (unit > 1 && Math.round(v) % unit !== 0) unit /= 10;
  }
  return unit;
}

const OUTFLOW_WORDS = ['취득', '증가', '지급', '유출', '납입', '출자', '구입', '매입', '대여'];
const INFLOW_WORDS = ['처분', '감소', '회수', '상환', '수취', '유입', '매각', '수령', '수입'];

/** Where the last of the words occurs in the text; -1 when none does. */
const lastIndexOf = (text: string, words: readonly string[]): number => Math.max(...words.map((w) => text.lastIndexOf(w)));

/**
 * A cash-flow line's signed amount. The statements file the investing lines as their concept's
 * own direction, mostly without a sign (유형자산의 취득 4,212,774,761 is an outflow): purchases,
 * payments, loans made and increases are outflows, proceeds, disposals, collections and decreases
 * inflows, and a net line (순감소(증가), 기타투자활동으로 인한 현금유출입액) keeps its filed sign.
 */
function cashFlowSigned(r: StatementRow, v: number): number {
  const label = r.accountNm;
  const local = localName(r.accountId);
  if (/순증감|순증가|순감소|유출입|증감|감소\(증가\)|증가\(감소\)/.test(label)) return v;
  // The label's last verb decides (장기대여금의 감소 is an inflow, 대여금의 증가 an outflow).
  const out = lastIndexOf(label, OUTFLOW_WORDS);
  const into = lastIndexOf(label, INFLOW_WORDS);
  if (out > into) return -Math.abs(v);
  if (into > out) return Math.abs(v);
  if (/^(Purchase|Payments|Repayments|CashFlowsUsedIn|Acquisition)/.test(local)) return -Math.abs(v);
  if (/^Proceeds/.test(local)) return Math.abs(v);
  return v;
}

/**
 * Whether a section's lines add up to its head, within the filing's rounding. The lines are
 * summed flat; failing that, a line that equals the sum of the lines right after it is read as
 * their subtotal (its items are then counted once, through it). Every line with an amount counts.
 */
function isComplete(section: Section, signed: (r: StatementRow, v: number) => number = (_r, v) => v): boolean {
  const total = section.head.thstrmAmount;
  if (total === null) return false;
  const lines = section.lines.filter((r) => r.thstrmAmount !== null);
  // A head of 0 without a line that has an amount: nothing in the section (CNH 2025 Q1: 투자활동현금흐름 0).
  if (lines.length === 0) return total === 0;
  const values = lines.map((r) => signed(r, r.thstrmAmount as number));
  const tolerance = roundingOf([total, ...values]);
  const sum = (vs: readonly number[]): number => vs.reduce((a, b) => a + b, 0);
  if (Math.abs(sum(values) - total) <= tolerance) return true;
  // One level of subtotals: a line followed by lines that add up to it.
  const kept: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    kept.push(v);
    let run = 0;
    for (let j = i + 1; j < values.length; j++) {
      run += values[j] as number;
      if (Math.abs(run - v) <= tolerance) {
        i = j;
        break;
      }
    }
  }
  return Math.abs(sum(kept) - total) <= tolerance;
}

/** What the complete sections of a filing prove absent (docs/calculations.md, "Debt"). */
export interface CompleteSections {
  /** Current assets: no receivables or inventory line means none. */
  currentAssets: boolean;
  /** Current liabilities: no trade payables line means none. */
  currentLiabilities: boolean;
  /** Current and non-current liabilities, adding up to total liabilities: no borrowing or bond line means no debt. */
  liabilities: boolean;
  /** The investing section of the cash-flow statement: no PP&E purchase line means no capex. */
  investing: boolean;
  /** The income statement: revenue less operating expenses is operating income, with no cost of sales line. */
  noCostOfSales: boolean;
}

/** No section complete: every item no line gives stays unknown. */
export const NO_COMPLETE_SECTIONS: CompleteSections = { currentAssets: false, currentLiabilities: false, liabilities: false, investing: false, noCostOfSales: false };

/** Which sections of the filing are complete (see `isComplete`). */
export function completeSections(rows: readonly StatementRow[], quarter: FiscalQuarter): CompleteSections {
  const bs = sectionsOf(rows, 'BS');
  const cf = sectionsOf(rows, 'CF');
  const complete = (s: Section | undefined): boolean => s !== undefined && isComplete(s);
  const currentAssets = complete(bs.get('currentAssets'));
  const currentLiabilities = complete(bs.get('currentLiabilities'));
  const cl = bs.get('currentLiabilities');
  const ncl = bs.get('nonCurrentLiabilities');
  const total = bs.get('liabilities');
  // A borrowing concept not read as debt (the financial layouts' 차입부채, ifrs-full_Borrowings) is
  // debt of unknown reading: it never proves debt absent.
  const unreadDebt = rows.some((r) => r.sjDiv === 'BS' && isDebtConcept(r) && debtSign(r) === null);
  let liabilities = false;
  if (cl && total && total.head.thstrmAmount !== null && cl.head.thstrmAmount !== null) {
    const parts = cl.head.thstrmAmount + (ncl?.head.thstrmAmount ?? 0);
    const tolerance = roundingOf([total.head.thstrmAmount, parts]);
    liabilities = currentLiabilities && (ncl === undefined || complete(ncl)) && Math.abs(parts - total.head.thstrmAmount) <= tolerance;
  } else if (!cl && !ncl && total) {
    // No current/non-current split (liquidity order): the lines under total liabilities.
    liabilities = complete(total);
  }
  const investing = cf.get('investing');
  // A line that holds PP&E purchases with other ones (유무형자산및투자부동산의취득, GS 2025 Q1) is
  // capex not stated apart: unknown, not 0.
  const combinedCapex = investing?.lines.some((r) => /^(Purchase|Acquisition).*PropertyPlantAndEquipment/.test(localName(r.accountId)) || /유형자산.*취득|유무형자산/.test(r.accountNm)) ?? false;
  return {
    currentAssets,
    currentLiabilities,
    liabilities: liabilities && !unreadDebt,
    investing: investing !== undefined && !combinedCapex && isComplete(investing, cashFlowSigned),
    noCostOfSales: reportsNoCostOfSales(rows, quarter),
  };
}

/** The income statement's one operating-expense total (a rule of its own, not an item's value). */
const OPERATING_EXPENSES: Rule = {
  item: 'costOfSales',
  sj: INCOME,
  ids: ['dart_OperatingExpenses', 'ifrs-full_OperatingExpense', 'dart_TotalSellingGeneralAdministrativeExpenses'],
  names: ['영업비용', '영업비용합계', '판매비와관리비'],
};

/**
 * An income-statement line naming a cost (원가: 영업원가, 용역원가, 상품매출원가, ...) other than
 * finance costs: a cost of sales under a label the rule does not read, which rules out "none".
 */
const isCostLine = (r: StatementRow): boolean => (r.sjDiv === 'IS' || r.sjDiv === 'CIS') && r.accountNm.includes('원가') && !/금융원가|원가법/.test(r.accountNm);

/**
 * An income statement without cost of sales: revenue less its one operating-expense total
 * (영업비용 of the by-nature form, or 판매비와관리비) is operating income within the rounding, and
 * it has no cost of sales line nor any other line naming a cost (`isCostLine`).
 */
function reportsNoCostOfSales(rows: readonly StatementRow[], quarter: FiscalQuarter): boolean {
  const has = (ids: readonly string[], names: readonly string[]): boolean => rows.some((r) => (r.sjDiv === 'IS' || r.sjDiv === 'CIS') && (ids.includes(r.accountId) || names.includes(r.accountNm)));
  if ((RULES_OF.get('costOfSales') ?? []).some((rule) => has(rule.ids, rule.names ?? [])) || rows.some(isCostLine)) return false;
  const revenue = firstOf('revenue', rows, quarter);
  const operatingIncome = firstOf('operatingIncome', rows, quarter);
  const expenses = pick(rows, OPERATING_EXPENSES, quarter);
  if (revenue === null || operatingIncome === null || expenses === null) return false;
  return Math.abs(revenue - Math.abs(expenses) - operatingIncome) <= roundingOf([revenue, expenses, operatingIncome]);
}

/** An item's value by its rules, in the order RULES lists them: the first that finds one. */
function firstOf(item: Item, rows: readonly StatementRow[], quarter: FiscalQuarter): number | null {
  for (const rule of RULES_OF.get(item) ?? []) {
    const v = pick(rows, rule, quarter);
    if (v !== null) return v;
  }
  return null;
}

/**
 * The year-to-date value of a row. Quarterly income statements give the three-month figure
 * in thstrm_amount and the cumulative one in thstrm_add_amount; for Q1 and FY the two agree
 * or the second is absent. Cash-flow and balance rows are already cumulative / point in time.
 */
function ytd(row: StatementRow, quarter: FiscalQuarter): number | null {
  if ((row.sjDiv === 'IS' || row.sjDiv === 'CIS') && (quarter === 2 || quarter === 3)) {
    return row.thstrmAddAmount ?? row.thstrmAmount;
  }
  return row.thstrmAmount;
}

function pick(rows: readonly StatementRow[], rule: Rule, quarter: FiscalQuarter): number | null {
  for (const sj of rule.sj) {
    const inSj = rows.filter((r) => r.sjDiv === sj);
    const byId = inSj.find((r) => rule.ids.includes(r.accountId));
    const row = byId ?? inSj.find((r) => (rule.names ?? []).includes(r.accountNm));
    if (row) {
      const v = ytd(row, quarter);
      if (v !== null) return rule.abs ? Math.abs(v) : v;
    }
  }
  return null;
}

export interface StatementContext {
  code: string;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  /** CFS (consolidated) or OFS (separate). */
  fsDiv: 'CFS' | 'OFS';
}

/** What `reportFromRows` needs besides the rows: the period, the statements' kind, and when they became known. */
export interface ReportContext extends StatementContext {
  disclosedOn: string;
}

/** Rows read besides the items' own rules: the income statement's operating-expense total (`reportsNoCostOfSales`) and the PP&E part purchases (`partsCapexOf`). */
const MAPPED_RULES: readonly Rule[] = [...RULES, PROFIT_FALLBACK, EQUITY_FALLBACK, OPERATING_EXPENSES, PPE_PARTS];
/** Each item's rules, in the order RULES lists them. */
const RULES_OF: ReadonlyMap<Item, readonly Rule[]> = RULES.reduce((by, r) => by.set(r.item, [...(by.get(r.item) ?? []), r]), new Map<Item, Rule[]>());
const MAPPED_IDS: ReadonlyMap<string, ReadonlySet<string>> = groupBySj(MAPPED_RULES, (r) => r.ids);
const MAPPED_NAMES: ReadonlyMap<string, ReadonlySet<string>> = groupBySj(MAPPED_RULES, (r) => r.names ?? []);

function groupBySj(rules: readonly Rule[], keys: (r: Rule) => readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const rule of rules) {
    for (const sj of rule.sj) {
      const set = out.get(sj) ?? new Set<string>();
      for (const k of keys(rule)) set.add(k);
      out.set(sj, set);
    }
  }
  return out;
}

/**
 * Whether `reportFromRows` can read anything from this row by itself. A reader holding many
 * companies' rows at once (a bulk period) keeps these, and besides them every section head
 * (`sectionHeadOf`) and, in statement order, the lines of the sections the absence rules check
 * (`isCheckedSection`); dropping the others changes no figure, since every item is found by
 * statement, id or label, debt by `debtSign`, and a section by its head and its lines.
 */
export function isMappedRow(r: StatementRow): boolean {
  return (MAPPED_IDS.get(r.sjDiv)?.has(r.accountId) ?? false) || (MAPPED_NAMES.get(r.sjDiv)?.has(r.accountNm) ?? false) || debtSign(r) !== null || isCostLine(r);
}

/**
 * The one mapping from statement rows to a FinancialReport, for the API's answers and the bulk
 * files alike. Flows are year-to-date (`ytd`), balances at the period end; net income and
 * equity attributable to the parent, falling back to profit for the period and total equity
 * where there is no controlling/non-controlling split. Debt, receivables, inventory, payables,
 * capex and cost of sales that no line gives are 0 where `complete` proves them absent
 * (`completeSections` of the rows unless given), else null.
 */
export function reportFromRows(rows: readonly StatementRow[], ctx: ReportContext, complete: CompleteSections = completeSections(rows, ctx.fiscalQuarter)): FinancialReport {
  const q = ctx.fiscalQuarter;
  const value = (item: Item): number | null => firstOf(item, rows, q);

  let netIncome = value('netIncome');
  let equity = value('equity');
  if (ctx.fsDiv === 'OFS' || netIncome === null) {
    // Separate statements have no controlling/non-controlling split, and a consolidated
    // filer without minority interests may omit it: profit for the period is then the
    // parent's own.
    netIncome ??= pick(rows, PROFIT_FALLBACK, q);
  }
  if (ctx.fsDiv === 'OFS' || equity === null) {
    equity ??= pick(rows, EQUITY_FALLBACK, q);
  }
  // An item a complete section does not list is 0; otherwise it stays unknown (null).
  const orZero = (v: number | null, proven: boolean): number | null => v ?? (proven ? 0 : null);

  return {
    market: 'KR',
    code: ctx.code,
    fiscalYear: ctx.fiscalYear,
    fiscalQuarter: q,
    periodEnd: ctx.periodEnd,
    disclosedOn: ctx.disclosedOn,
    consolidated: ctx.fsDiv === 'CFS',
    revenue: value('revenue'),
    costOfSales: orZero(value('costOfSales'), complete.noCostOfSales),
    operatingIncome: value('operatingIncome'),
    netIncome,
    operatingCashFlow: value('operatingCashFlow'),
    capex: orZero(value('capex') ?? partsCapexOf(rows), complete.investing),
    interestExpense: value('interestExpense'),
    basicEps: value('basicEps'),
    // Not in the statements: the periodic report's dividend section (alotMatter.json, `parseAlotMatter`).
    dividendPerShare: null,
    totalAssets: value('totalAssets'),
    currentAssets: value('currentAssets'),
    totalLiabilities: value('totalLiabilities'),
    currentLiabilities: value('currentLiabilities'),
    equity,
    cash: value('cash'),
    debt: orZero(debtOf(rows), complete.liabilities),
    receivables: orZero(value('receivables'), complete.currentAssets),
    inventory: orZero(value('inventory'), complete.currentAssets),
    payables: orZero(value('payables'), complete.currentLiabilities),
    // Share counts are not in the statements; the FSC price feed carries listed shares.
    shares: null,
    source: SOURCE_NAME,
  };
}

const DEPOSITS_ID = 'ifrs-full_DepositsFromCustomers';

/** Customer deposits on the balance sheet (the financial layouts' 예수부채). */
export const isDepositsRow = (r: StatementRow): boolean => r.sjDiv === 'BS' && r.accountId === DEPOSITS_ID;

/** Customer deposits over total liabilities in the rows; null when either is not filed or liabilities are not positive. */
export function depositShareOf(rows: readonly StatementRow[]): number | null {
  const deposits = rows.find(isDepositsRow)?.thstrmAmount ?? null;
  const liabilities = rows.find((r) => r.sjDiv === 'BS' && r.accountId === 'ifrs-full_Liabilities')?.thstrmAmount ?? null;
  return deposits === null || liabilities === null || liabilities <= 0 ? null : deposits / liabilities;
}

/** `depositShareOf` one fnlttSinglAcntAll.json response's rows. */
export const depositShareOfAnswer = (envelope: DartEnvelope): number | null => depositShareOf(statementRows(envelope.list));

/**
 * Maps one fnlttSinglAcntAll.json response to a FinancialReport, or null when it holds no
 * statement rows (status 013). disclosedOn comes from rcept_no, whose first eight digits are
 * the receipt date, so a correction (a later rcept_no for the same period) yields a second
 * report with a later disclosedOn.
 */
export function parseFinancialStatements(envelope: DartEnvelope, ctx: StatementContext): FinancialReport | null {
  if (envelope.status !== DART_STATUS.OK || envelope.list.length === 0) return null;
  const rceptNo = envelope.list.map((r) => str(r, 'rcept_no')).sort().at(-1) ?? '';
  const disclosedOn = toIsoDate(rceptNo.slice(0, 8));
  if (disclosedOn === null) return null;
  return reportFromRows(statementRows(envelope.list), { ...ctx, disclosedOn });
}

/**
 * alotMatter.json (배당에 관한 사항, one answer per periodic report): rows `{rcept_no, corp_cls,
 * corp_code, corp_name, se, [stock_knd], thstrm, frmtrm, lwfr, [stlm_dt]}`, every value a
 * string. The common share's cash dividend per share of the current period (`se` 주당
 * 현금배당금(원), `thstrm`): year to date, as the recorded answers show (Samsung Electronics
 * 2020: 354 won in the Q1 report, 708 in the half-year report). The row of `stock_knd` 보통주,
 * else of a single share class (`stock_knd` `-`, blank or absent); never 우선주. `-` (no cash
 * dividend declared in the period) reads as 0: the report states none. Null for a non-000
 * answer or an answer without such a row.
 */
export function parseAlotMatter(envelope: DartEnvelope): number | null {
  if (envelope.status !== DART_STATUS.OK) return null;
  const rows = envelope.list.filter((r) => str(r, 'se').replace(/\s+/g, '') === '주당현금배당금(원)');
  const kind = (r: Record<string, unknown>): string => str(r, 'stock_knd').replace(/\s+/g, '');
  const row = rows.find((r) => kind(r) === '보통주') ?? rows.find((r) => kind(r) === '' || kind(r) === '-');
  if (row === undefined) return null;
  const text = str(row, 'thstrm').trim();
  if (text === '-') return 0;
  const value = parseAmount(text);
  return value !== null && value >= 0 ? value : null;
}

/** corp_cls of company.json / list.json: Y = KOSPI, K = KOSDAQ, N = KONEX, E = other. */
const EXCHANGE_BY_CORP_CLS: Readonly<Record<string, string>> = { Y: 'KOSPI', K: 'KOSDAQ' };

/** KOSPI or KOSDAQ for corp_cls Y or K; null for KONEX (N), other (E) and anything else. */
export const exchangeOfCorpCls = (corpCls: string): string | null => EXCHANGE_BY_CORP_CLS[corpCls.trim()] ?? null;

/**
 * A filer placed from what the filing list and corpCode.xml say, before (or without) its
 * company.json: code, name and exchange; sector `Unclassified` until its record comes (the
 * store keeps a sector another source found), fiscal year end December (the filing list only
 * names December-year periods, see `parsePeriodicFiling`). Null outside KOSPI/KOSDAQ.
 */
export function placedFiler(filing: PeriodicFiling, corp: CorpCode | undefined): Security | null {
  const exchange = exchangeOfCorpCls(filing.corpCls);
  const code = /^\d{6}$/.test(filing.stockCode) ? filing.stockCode : (corp?.stockCode ?? '');
  if (exchange === null || !/^\d{6}$/.test(code)) return null;
  return {
    market: 'KR',
    code,
    name: filing.corpName || corp?.corpName || code,
    nameEn: corp?.corpNameEn || null,
    exchange,
    sector: UNCLASSIFIED,
    currency: 'KRW',
    fiscalYearEndMonth: 12,
    source: SOURCE_NAME,
  };
}

/**
 * company.json (기업개황): `{status, message, corp_code, corp_name, corp_name_eng, stock_name,
 * stock_code, ceo_nm, corp_cls, jurir_no, bizr_no, adres, hm_url, ir_url, phn_no, fax_no,
 * induty_code, est_dt, acc_mt}`, every value a string. Gives the Security with its English
 * name (`corp_name_eng`, null when blank), sector
 * (KSIC `induty_code` by longest prefix) and fiscal year-end month (`acc_mt`, default 12).
 * Null for a non-000 answer, a company outside KOSPI/KOSDAQ, or no six-digit stock code
 * (`fallbackStockCode` is corpCode.xml's, used when the answer's own is blank).
 */
export function parseCompany(body: unknown, fallbackStockCode = ''): Security | null {
  if (!isRecord(body) || body['status'] !== DART_STATUS.OK) return null;
  const exchange = exchangeOfCorpCls(str(body, 'corp_cls'));
  const own = str(body, 'stock_code').trim();
  const code = /^\d{6}$/.test(own) ? own : fallbackStockCode;
  if (exchange === null || !/^\d{6}$/.test(code)) return null;
  const month = Number(str(body, 'acc_mt').trim());
  return {
    market: 'KR',
    code,
    name: str(body, 'stock_name').trim() || str(body, 'corp_name').trim(),
    // As OpenDART spells it (`SAMSUNG ELECTRONICS CO,.LTD`); search ignores case and punctuation.
    nameEn: str(body, 'corp_name_eng').trim() || null,
    exchange,
    sector: sectorForKsic(str(body, 'induty_code')),
    currency: 'KRW',
    fiscalYearEndMonth: Number.isInteger(month) && month >= 1 && month <= 12 ? month : 12,
    source: SOURCE_NAME,
  };
}
