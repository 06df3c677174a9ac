// What the 17 percentile metrics are (docs/calculations.md section 5), for a reader who wants
// to know before asking: a name, the unit the results carry and the definition. The results
// themselves are computed in snapshot.ts; test/http/mcp.test.ts checks that the units here are
// the ones a get_sector_percentile answer carries.

import { NOT_APPLICABLE_TO_FINANCIAL_METRICS, NOT_APPLICABLE_TO_FINANCIALS } from './financials.js';
import type { PercentileMetricKey } from './results.js';

export interface MetricDefinition {
  name: string;
  /** `x` (a multiple), `%` (percent, x 100) or `days`. */
  unit: 'x' | '%' | 'days';
  definition: string;
}

/** The snapshot's per-share figures (its `perShare` group), also screenable. */
export const PER_SHARE_DEFINITIONS: Readonly<Record<'eps' | 'dividendPerShare' | 'dividendPerShareFy' | 'dividendYield', { name: string; unit: string; definition: string }>> = {
  eps: {
    name: 'EPS (TTM)',
    unit: 'currency',
    definition:
      'trailing-twelve-month earnings per share in the stock currency: the filings\' basic EPS summed like any TTM flow (KR), else TTM net income / shares at the TTM\'s last quarter (US), else / listed shares at the price date; `basis` says which',
  },
  dividendPerShare: {
    name: 'Dividend per share (TTM)',
    unit: 'currency',
    definition: 'cash dividends per common share declared over the trailing twelve months (year-to-date figures of the filings, as any TTM flow), in the stock currency; 0 when the filings declare none',
  },
  dividendPerShareFy: {
    name: 'Dividend per share (last fiscal year)',
    unit: 'currency',
    definition: 'cash dividends per common share declared for the last fiscal year with an annual report disclosed by the date, in the stock currency',
  },
  dividendYield: { name: 'Dividend yield', unit: '%', definition: 'TTM dividend per share / last close x 100 (both on the share basis of the price date)' },
};

/** How operating income is taken where the filings carry no line for it (docs/calculations.md, "Operating income"). */
const OPERATING_INCOME = 'operating income as filed; for a US filer that tags no operating-income line, pre-tax income + interest expense';
/** What debt is where no line states it (docs/calculations.md, "Debt"). */
const DEBT = 'debt 0 where the filings prove none, null where unknown';

const DEFINITIONS: Readonly<Record<PercentileMetricKey, MetricDefinition>> = {
  per: { name: 'PER', unit: 'x', definition: 'market cap / TTM net income (controlling); null when net income <= 0' },
  pbr: { name: 'PBR', unit: 'x', definition: 'market cap / equity of the latest filed quarter; null when equity <= 0' },
  psr: { name: 'PSR', unit: 'x', definition: 'market cap / TTM revenue; null when revenue <= 0' },
  evEbit: { name: 'EV/EBIT', unit: 'x', definition: `(market cap + debt - cash) / TTM operating income; null when operating income <= 0; ${OPERATING_INCOME}; ${DEBT}` },
  roe: { name: 'ROE', unit: '%', definition: 'TTM net income / equity; null when equity <= 0' },
  roic: { name: 'ROIC (pre-tax)', unit: '%', definition: `TTM operating income / (equity + debt - cash); null when invested capital <= 0; ${OPERATING_INCOME}; ${DEBT}` },
  operatingMargin: { name: 'Operating margin', unit: '%', definition: `TTM operating income / TTM revenue; null when revenue <= 0; ${OPERATING_INCOME}` },
  netMargin: { name: 'Net margin', unit: '%', definition: 'TTM net income / TTM revenue; null when revenue <= 0' },
  revenueYoy: { name: 'Revenue YoY', unit: '%', definition: 'TTM revenue vs the TTM four quarters earlier; null when the base is 0 or missing' },
  operatingIncomeYoy: { name: 'Operating income YoY', unit: '%', definition: `TTM operating income vs the TTM four quarters earlier; null when the base is 0 or missing; ${OPERATING_INCOME}` },
  epsYoy: {
    name: 'EPS YoY',
    unit: '%',
    definition:
      'TTM EPS vs TTM EPS four quarters earlier, both on one basis (`basis` says which): the filings\' own basic EPS where both TTMs carry it (KR statements), ' +
      'else TTM net income / split-consistent shares at each TTM\'s last quarter (US), else TTM net income / the listed shares at the price date for both (KR without reported EPS); ' +
      'KR per-share figures put on today\'s share basis across splits; null when the base is 0 or missing',
  },
  netDebtRatio: { name: 'Net-debt ratio', unit: '%', definition: `(debt - cash) / equity; null when equity <= 0 or debt is not reported; ${DEBT}` },
  interestCoverage: { name: 'Interest coverage', unit: 'x', definition: `TTM operating income / TTM interest expense; null when there is no interest expense; ${OPERATING_INCOME}` },
  currentRatio: { name: 'Current ratio', unit: '%', definition: 'current assets / current liabilities; null when current liabilities <= 0' },
  fcfYield: { name: 'FCF yield', unit: '%', definition: '(TTM operating cash flow - TTM capex) / market cap' },
  cfToNi: { name: 'CF/NI', unit: 'x', definition: 'TTM operating cash flow / TTM net income; null when net income <= 0' },
  ccc: {
    name: 'Cash conversion cycle',
    unit: 'days',
    definition:
      'DSO + DIO - DPO: receivables / TTM revenue x 365 + inventory / TTM cost of sales x 365 - payables / TTM cost of sales x 365, inventory 0 where the filings prove none; null (not applicable) when the filings state no cost of sales',
  },
};

/** The definitions, each metric that financial companies do not have saying so (src/domain/financials.ts). */
export const PERCENTILE_METRIC_DEFINITIONS: Readonly<Record<PercentileMetricKey, MetricDefinition>> = Object.fromEntries(
  Object.entries(DEFINITIONS).map(([key, d]) => [
    key,
    (NOT_APPLICABLE_TO_FINANCIAL_METRICS as readonly string[]).includes(key) ? { ...d, definition: `${d.definition}; null (${NOT_APPLICABLE_TO_FINANCIALS}) for banks, insurers, securities firms and other financials` } : d,
  ]),
) as Record<PercentileMetricKey, MetricDefinition>;
