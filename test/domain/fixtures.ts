// Builders for hand-written test inputs: every field not given is null (model.ts: "Missing
// items are null, never 0"), so a test states exactly the figures it depends on.

import { addDays, isoWeekday } from '../../src/domain/calendar.js';
import type { DailyBar, FinancialReport, FiscalQuarter, InvestorFlow, Market } from '../../src/domain/model.js';

type ReportFields = Partial<Omit<FinancialReport, 'fiscalYear' | 'fiscalQuarter' | 'disclosedOn'>>;

const QUARTER_END_DECEMBER: Record<FiscalQuarter, string> = { 1: '03-31', 2: '06-30', 3: '09-30', 4: '12-31' };

/** A filing; periodEnd defaults to a December fiscal year's quarter end. */
export function report(fiscalYear: number, fiscalQuarter: FiscalQuarter, disclosedOn: string, fields: ReportFields = {}): FinancialReport {
  return {
    market: 'KR',
    code: '005930',
    fiscalYear,
    fiscalQuarter,
    periodEnd: `${fiscalYear}-${QUARTER_END_DECEMBER[fiscalQuarter]}`,
    disclosedOn,
    consolidated: true,
    revenue: null,
    costOfSales: null,
    operatingIncome: null,
    netIncome: null,
    operatingCashFlow: null,
    capex: null,
    interestExpense: null,
    basicEps: null,
    dividendPerShare: null,
    totalAssets: null,
    currentAssets: null,
    totalLiabilities: null,
    currentLiabilities: null,
    equity: null,
    cash: null,
    debt: null,
    receivables: null,
    inventory: null,
    payables: null,
    shares: null,
    source: 'test',
    ...fields,
  };
}

/** Disclosure dates used across the tests: Q1..Q3 reports 45 days after quarter end, FY 75. */
export const DISCLOSED: Record<FiscalQuarter, (fy: number) => string> = {
  1: (fy) => `${fy}-05-15`,
  2: (fy) => `${fy}-08-14`,
  3: (fy) => `${fy}-11-14`,
  4: (fy) => `${fy + 1}-03-15`,
};

/** The YTD filings of one December fiscal year, Q1 first (up to four). */
export function fiscalYear(fy: number, ytd: ReportFields[]): FinancialReport[] {
  return ytd.slice(0, 4).map((fields, i) => {
    const q = (i + 1) as FiscalQuarter;
    return report(fy, q, DISCLOSED[q](fy), fields);
  });
}

export function bar(date: string, close: number, fields: Partial<DailyBar> = {}): DailyBar {
  const shares = fields.shares ?? 1_000_000;
  return {
    market: 'KR',
    code: '005930',
    date,
    open: close,
    high: close,
    low: close,
    close,
    volume: 1000,
    tradedValue: close * 1000,
    shares,
    marketCap: close * shares,
    source: 'test',
    ...fields,
  };
}

export function flow(date: string, foreignNet: number, institutionNet: number, market: Market = 'KR'): InvestorFlow {
  return { market, code: '005930', date, foreignNet, institutionNet, source: 'test' };
}

/** `n` consecutive weekdays (Mon..Fri) starting on or after `start`, as `YYYY-MM-DD`. */
export function weekdays(start: string, n: number): string[] {
  const out: string[] = [];
  for (let d = start; out.length < n; d = addDays(d, 1)) if (isoWeekday(d) <= 5) out.push(d);
  return out;
}
