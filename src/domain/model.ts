// The normalised data model: what every source produces, the store keeps, and the
// calculations read. Plain data, no behaviour. Dates are ISO strings (`YYYY-MM-DD`),
// months `YYYY-MM`; money is in the security's own currency (KRW for KR, USD for US)
// except trade figures, which are USD as Korea Customs publishes them.

export type Market = 'KR' | 'US';
export const MARKETS: readonly Market[] = ['KR', 'US'];

export type Currency = 'KRW' | 'USD';
export const currencyOf = (market: Market): Currency => (market === 'KR' ? 'KRW' : 'USD');

/** Where a record came from: `demo` for the embedded generator, else the upstream's name. */
export type SourceName = string;

export interface Security {
  market: Market;
  /** KR: six digits. US: upper-case ticker with `.` as the class separator (`BRK.B`). */
  code: string;
  /** As the exchange lists it: Korean for KR companies (`삼성전자`), English for US ones. */
  name: string;
  /**
   * The English name where a source gives one (OpenDART's `corp_name_eng`, the demo's); absent
   * or null when unknown. US companies' names are English already.
   */
  nameEn?: string | null;
  /** KOSPI / KOSDAQ for KR, NYSE / NASDAQ / ... for US. */
  exchange: string;
  sector: string;
  currency: Currency;
  /** Month (1..12) in which the fiscal year ends; 12 for calendar-year reporters. */
  fiscalYearEndMonth: number;
  source: SourceName;
  /** US foreign private issuers only (20-F/40-F filers): how their filings were read. Absent or null otherwise. */
  filerBasis?: FilerBasis | null;
}

/**
 * How a foreign private issuer's filings become its reports (docs/calculations.md, "Foreign
 * private issuers"): the annual form it files, the currency its statements are in and, when that
 * is not the security's currency, the rate each filing's figures were converted at.
 */
export interface FilerBasis {
  /** `20-F` or `40-F`. */
  annualForm: string;
  /** ISO 4217 code of the currency of its statements (`TWD`, `EUR`, `USD`...). */
  reportingCurrency: string;
  /**
   * Per filing, by disclosure date (ascending): USD per unit of `reportingCurrency` its figures
   * (and the year before it gives) were converted at. From the filing's own USD convenience
   * translation (one rate for every figure), or, where it gives none, from the ECB's reference
   * rates (`reference`): `usdPerUnit` the average of the period's daily rates (flows), the
   * balances at the rate of the period end. Empty when it reports in USD.
   */
  usdRates: { disclosedOn: string; usdPerUnit: number; reference?: ReferenceConversion }[];
}

/** How a filing's figures were converted at the ECB's reference rates (src/domain/reference-rates.ts). */
export interface ReferenceConversion {
  /** The period whose daily rates were averaged (flows): its first and last day, and the number of days with a published rate. */
  from: string;
  to: string;
  days: number;
  /** USD per unit at the period end (balances), and the day of that rate: the last published on or before the period end. */
  balanceUsdPerUnit: number;
  balanceOn: string;
}

/** A company's English name: the one a source gave, else (US) its listed name; null when unknown. */
export const englishNameOf = (s: Pick<Security, 'market' | 'name' | 'nameEn'>): string | null => s.nameEn ?? (s.market === 'US' ? s.name : null);

export interface DailyBar {
  market: Market;
  code: string;
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Shares traded. */
  volume: number;
  /** Money traded that day, in the security's currency. */
  tradedValue: number;
  /** Listed shares at the close. */
  shares: number;
  /** close x shares. */
  marketCap: number;
  source: SourceName;
}

/** Quarter of the fiscal year a report covers: 1 = Q1 (3M), 2 = H1 (6M), 3 = 9M, 4 = FY. */
export type FiscalQuarter = 1 | 2 | 3 | 4;

/**
 * One financial report as filed. Flow items are cumulative from the start of the fiscal
 * year (year-to-date), as Korean quarterly reports and US 10-Q/10-K present them:
 * Q1 = 3 months, 2 = H1 (6 months), 3 = 9 months, 4 = the full year. Balance items are
 * the position at `periodEnd`. A corrected filing is a second row for the same fiscal
 * period with a later `disclosedOn`; it replaces the original from its own disclosure
 * date on (point in time). Missing items are null, never 0; an item a complete statement
 * section proves absent is 0 (KR), and so is one a US filer's whole companyfacts history proves
 * absent (docs/calculations.md, "Debt" and CCC).
 */
export interface FinancialReport {
  market: Market;
  code: string;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  disclosedOn: string;
  /** Consolidated (true) or separate/parent-only (false) statements. */
  consolidated: boolean;
  // Flows, year-to-date.
  revenue: number | null;
  costOfSales: number | null;
  operatingIncome: number | null;
  /** Net income attributable to owners of the parent (controlling interest). */
  netIncome: number | null;
  operatingCashFlow: number | null;
  /** Purchases of property, plant and equipment, as a positive number. */
  capex: number | null;
  interestExpense: number | null;
  /**
   * Basic earnings per share as filed (기본주당이익, `ifrs-full_BasicEarningsLossPerShare`), year
   * to date, in the reporting currency per share, on the share basis of the filing's own date.
   * Null when the filing does not carry it (US filings: the US path divides net income by shares).
   */
  basicEps: number | null;
  /**
   * Cash dividends per common share declared for the fiscal year to date, in the reporting
   * currency, on the share basis of the filing's own date (KR: the periodic report's 배당에 관한
   * 사항, `-` read as 0, a declared none; US: `CommonStockDividendsPerShareDeclared`, else
   * `...CashPaid`, restated to the latest share basis). Null when not reported.
   */
  dividendPerShare: number | null;
  // Balances at period end.
  totalAssets: number | null;
  currentAssets: number | null;
  totalLiabilities: number | null;
  currentLiabilities: number | null;
  /** Equity attributable to owners of the parent. */
  equity: number | null;
  cash: number | null;
  /** Interest-bearing debt (short + long term borrowings and bonds). */
  debt: number | null;
  receivables: number | null;
  inventory: number | null;
  payables: number | null;
  /** Shares outstanding at period end. */
  shares: number | null;
  source: SourceName;
}

export const FLOW_ITEMS = [
  'revenue',
  'costOfSales',
  'operatingIncome',
  'netIncome',
  'operatingCashFlow',
  'capex',
  'interestExpense',
  'basicEps',
  'dividendPerShare',
] as const;
export type FlowItem = (typeof FLOW_ITEMS)[number];

export const BALANCE_ITEMS = [
  'totalAssets',
  'currentAssets',
  'totalLiabilities',
  'currentLiabilities',
  'equity',
  'cash',
  'debt',
  'receivables',
  'inventory',
  'payables',
  'shares',
] as const;
export type BalanceItem = (typeof BALANCE_ITEMS)[number];

/** KR only: net buying by investor type, in won (buy value minus sell value). */
export interface InvestorFlow {
  market: Market;
  code: string;
  date: string;
  foreignNet: number;
  institutionNet: number;
  source: SourceName;
}

/** What the snapshot uses of a daily bar: the price and market cap, and the supply window's figures. */
export type SnapshotBar = Pick<DailyBar, 'date' | 'close' | 'tradedValue' | 'shares' | 'marketCap'>;

/** What supplyPct uses of an investor-flow row. */
export type FlowDay = Pick<InvestorFlow, 'date' | 'foreignNet' | 'institutionNet'> & { source?: SourceName };

/** Won per US dollar on a date. */
export interface FxRate {
  date: string;
  usdKrw: number;
  source: SourceName;
}

/**
 * A euro foreign exchange reference rate as the ECB publishes it: units of `currency` per 1 EUR
 * on `date`, the day it was published (src/domain/reference-rates.ts crosses them into USD).
 */
export interface EuroReferenceRate {
  date: string;
  /** ISO 4217 code (`USD`, `JPY`, `CAD`...). */
  currency: string;
  perEur: number;
  source: SourceName;
}

/** Korean trade totals for one month, in US dollars. */
export interface TradeMonth {
  month: string;
  exports: number;
  imports: number;
  /** exports - imports. */
  balance: number;
  source: SourceName;
}

/** Korean exports of one sector in one month, in US dollars. */
export interface SectorExportMonth {
  month: string;
  sector: string;
  exports: number;
  source: SourceName;
}

/** Everything a source can deliver; any part may be empty. */
export interface Dataset {
  securities: Security[];
  bars: DailyBar[];
  reports: FinancialReport[];
  flows: InvestorFlow[];
  fx: FxRate[];
  trade: TradeMonth[];
  sectorExports: SectorExportMonth[];
  /** The ECB's euro reference rates (the conversion of foreign filers without a USD translation); optional. */
  referenceRates?: EuroReferenceRate[];
  /** Names companies were known by before, with their days, where a source dates them (SEC's formerNames); optional. */
  formerNames?: FormerName[];
}

/**
 * A name a company went by over a span of days (src/domain/listings.ts `formerNameSpans`): from
 * `from` until the day before `until`. Its sector and exchange are those the store holds then.
 */
export interface FormerName {
  market: Market;
  code: string;
  name: string;
  /** `YYYY-MM-DD`, the first day of the name. */
  from: string;
  /** `YYYY-MM-DD`, the day the next name took its place. */
  until: string;
}
