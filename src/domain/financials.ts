// Financial-sector companies (banks, insurers, securities firms, other financials): which of the
// snapshot's metrics do not exist for them, decided by the sector a security is placed in
// (docs/calculations.md, "Financial companies"). Their statements have no current/non-current
// split, no revenue as industrial companies report it, and their borrowings and deposits are the
// funding of their business, not financing debt.

import type { PercentileMetricKey, SnapshotMetricKey } from './results.js';

/** The reason of every metric a financial company's snapshot leaves null as not applicable. */
export const NOT_APPLICABLE_TO_FINANCIALS = 'not applicable to financial companies';

/**
 * The reason of a financial company's operating income YoY when none of its filings at the date
 * states an operating income: US banks, insurers and lenders file no operating-income subtotal
 * (their income statements go from revenue and expenses to pre-tax income), so the metric does
 * not exist for them; a Korean financial layout states 영업이익 and has it.
 */
export const NO_OPERATING_INCOME_FILED = 'not applicable to a financial company that reports no operating income';

/** The financial sectors of both markets (KR: src/sources/opendart/sectors.ts, by KSIC code and statement layout; US: src/sources/sec/sectors.ts, by SIC code). */
export const FINANCIAL_SECTORS: readonly string[] = ['Banks', 'Insurance', 'Securities', 'Asset Management', 'Other Financials'];

const FINANCIAL = new Set(FINANCIAL_SECTORS);

/** Whether a security placed in `sector` is a financial company. */
export const isFinancialSector = (sector: string): boolean => FINANCIAL.has(sector);

/**
 * The metrics null for financial companies, and why (docs/calculations.md):
 * - revenue-based (PSR, operating and net margin, revenue YoY): banks file no revenue line,
 *   insurers split insurance and investment revenue, brokers' 영업수익 is gross of their trading
 *   turnover; none compares with an industrial company's sales;
 * - debt-based (EV/EBIT, ROIC, net-debt ratio, interest coverage): borrowings, bonds and deposits
 *   fund the loans and securities a financial company holds (its inventory), and interest expense
 *   is its cost of sales;
 * - balance-sheet structure (current ratio, CCC): no current/non-current split, no receivables,
 *   inventory or payables cycle;
 * - cash-flow-based (FCF yield, CF/NI): operating cash flow carries the change of loans, deposits
 *   and trading assets, so it measures balance-sheet growth, not earnings' cash.
 * Applicable: PER, PBR, ROE, EPS YoY, operating income YoY and operating cash flow as filed.
 */
export const NOT_APPLICABLE_TO_FINANCIAL_METRICS: readonly (SnapshotMetricKey | PercentileMetricKey)[] = [
  'psr',
  'operatingMargin',
  'netMargin',
  'revenueYoy',
  'evEbit',
  'roic',
  'netDebtRatio',
  'interestCoverage',
  'currentRatio',
  'ccc',
  'fcfYield',
  'cfToNi',
];
