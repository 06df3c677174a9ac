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
} as const satisfies Record<string, keyof ReportsTable>;

type ItemKey = keyof typeof reportColumns;
const ITEM_KEYS = Object.keys(reportColumns) as ItemKey[];
const EMPTY_ITEMS = Object.fromEntries(ITEM_KEYS.map((k) => [k, null])) as Record<ItemKey, number | null>;
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

/** A filing from an array row whose REPORT_FIGURES start at `at`. */
export function toReport(r: unknown[], market: Market, code: string, at: number): FinancialReport {
  // Every key in one order (one hidden class for all reports), then the items in column order.
  const report = {
    market,
    code,
    fiscalYear: r[at] as number,
    fiscalQuarter: r[at + 1] as FiscalQuarter,
    periodEnd: r[at + 2] as string,
    disclosedOn: r[at + 3] as string,
    consolidated: Number(r[at + 4]) === 1,
    ...EMPTY_ITEMS,
    source: r[at + 5 + ITEM_KEYS.length] as string,
  };
  for (let i = 0; i < ITEM_KEYS.length; i++) report[ITEM_KEYS[i] as ItemKey] = toNumberOrNull(r[at + 5 + i]);
  return report;
}
