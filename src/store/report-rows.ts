// A filing's row in the reports table and back: the column of each item, and the mapping both
// ways. Shared by the store's reads and writes and by what it derives from the filings
// (./ttm-steps.ts).

import type { FinancialReport, FiscalQuarter, Market } from '../domain/model.js';
import type { ReportsTable } from './schema.js';

const reportColumns = {
  revenue: 'revenue',
  costOfSales: 'cost_of_sales',
  operatingIncome: 'operating_income',
  netIncome: 'net_income',
  operatingCashFlow: 'operating_cash_flow',
  capex: 'capex',
  interestExpense: 'interest_expense',
  totalAssets: 'total_assets',
  currentAssets: 'current_assets',
  totalLiabilities: 'total_liabilities',
  currentLiabilities: 'current_liabilities',
  equity: 'equity',
  cash: 'cash',
  debt: 'debt',
  receivables: 'receivables',
  inventory: 'inventory',
  payables: 'payables',
  shares: 'shares',
  basicEps: 'basic_eps',
  dividendPerShare: 'dividend_per_share',
} as const satisfies Record<string, keyof ReportsTable>;

/** A filing's figures, in the order of their columns (and of a report pack's, ./report-packs.ts). */
export type ItemKey = keyof typeof reportColumns;
export const ITEM_KEYS = Object.keys(reportColumns) as ItemKey[];
/** A filing's own columns, in the order `toReport` reads them. */
export const REPORT_FIGURES = [
  'reports.fiscal_year',
  'reports.fiscal_quarter',
  'reports.period_end',
  'reports.disclosed_on',
  'reports.consolidated',
  ...ITEM_KEYS.map((k) => `reports.${reportColumns[k]}` as const),
  'reports.source',
] as const;

export function reportRow(securityId: number, r: FinancialReport): ReportsTable {
  const items = Object.fromEntries(ITEM_KEYS.map((k) => [reportColumns[k], r[k]])) as Pick<ReportsTable, (typeof reportColumns)[ItemKey]>;
  return {
    security_id: securityId,
    fiscal_year: r.fiscalYear,
    fiscal_quarter: r.fiscalQuarter,
    consolidated: r.consolidated ? 1 : 0,
    disclosed_on: r.disclosedOn,
    period_end: r.periodEnd,
    ...items,
    source: r.source,
  };
}

// PostgreSQL's driver may hand back numeric columns as strings; SQLite gives numbers.
function toNumberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/**
 * A filing whose figures `figure` gives by their index in ITEM_KEYS. Every key is written in
 * the literal, in one order: one hidden class for all reports (V8 keeps an object whose many
 * properties are added afterwards by computed key as a dictionary, several times the memory and
 * slower to read) and no keyed store per figure.
 */
export function reportOf(
  market: Market,
  code: string,
  fiscalYear: number,
  fiscalQuarter: FiscalQuarter,
  periodEnd: string,
  disclosedOn: string,
  consolidated: boolean,
  source: string,
  figure: (item: number) => number | null,
): FinancialReport {
  return {
    market,
    code,
    fiscalYear,
    fiscalQuarter,
    periodEnd,
    disclosedOn,
    consolidated,
    revenue: figure(0),
    costOfSales: figure(1),
    operatingIncome: figure(2),
    netIncome: figure(3),
    operatingCashFlow: figure(4),
    capex: figure(5),
    interestExpense: figure(6),
    // The per-share figures' columns come last (ITEM_KEYS), their keys in the model's order.
    basicEps: figure(18),
    dividendPerShare: figure(19),
    totalAssets: figure(7),
    currentAssets: figure(8),
    totalLiabilities: figure(9),
    currentLiabilities: figure(10),
    equity: figure(11),
    cash: figure(12),
    debt: figure(13),
    receivables: figure(14),
    inventory: figure(15),
    payables: figure(16),
    shares: figure(17),
    source,
  };
}

/** A filing from an array row whose REPORT_FIGURES start at `at`. */
export function toReport(r: unknown[], market: Market, code: string, at: number): FinancialReport {
  const first = at + 5;
  return reportOf(market, code, r[at] as number, r[at + 1] as FiscalQuarter, r[at + 2] as string, r[at + 3] as string, Number(r[at + 4]) === 1, r[first + ITEM_KEYS.length] as string, (i) =>
    toNumberOrNull(r[first + i]),
  );
}
