// `node --import tsx bench/template-metrics.ts [--foreign] [asOf]`: for each recorded SEC companyfacts the
// first-start replica copies (bench/replica/universe.ts, US_TEMPLATES), the service's own
// calculation (parseCompanyFacts -> discreteQuarters -> stockMetrics, the financial flag from the
// template's submissions SIC, given to both as the API adapter and the bulk reader do) and which of the 17 percentile metrics come out null and why.
// With `--foreign`, the same for each template's foreign filer copy as the replica serves it
// (bench/replica/api.ts, foreignFacts: ifrs-full facts on 20-F and 6-K), reporting in USD (the
// replica's USD 20-F filer) so that no exchange rate is needed.
// Last, per metric, the count of templates with a value against those it applies to (a null
// whose reason is "not applicable ..." does not count as applicable).
// A price is needed by the price-based metrics: a close of 100 USD on `asOf` times the latest
// filed share count, so only a missing share count makes them null. `asOf` defaults to the
// rehearsal's clock day (2026-11-25).

import { isFinancialSector } from '../src/domain/financials.js';
import { PERCENTILE_METRICS, type PercentileMetricKey } from '../src/domain/results.js';
import { stockMetrics } from '../src/domain/snapshot.js';
import { discreteQuarters } from '../src/domain/ttm.js';
import { parseCompanyFacts, parseSubmissions } from '../src/sources/sec/parse.js';
import { realJson } from '../test/e2e/upstream.js';
import { constructedSubmissions, foreignFacts } from './replica/api.js';
import { FOREIGN_FILERS, type ForeignFiler } from './replica/universe.js';
import { US_TEMPLATES } from './replica/universe.js';

const args = process.argv.slice(2);
const foreign = args.includes('--foreign');
const asOf = args.find((a) => !a.startsWith('--')) ?? '2026-11-25';
const usdFiler = FOREIGN_FILERS.find((f) => f.currency === 'USD') as ForeignFiler;

const tally = new Map<PercentileMetricKey, { value: number; applicable: number }>(PERCENTILE_METRICS.map((k) => [k, { value: 0, applicable: 0 }]));
for (const t of US_TEMPLATES) {
  const placement = parseSubmissions(t.submissions === null ? constructedSubmissions(t) : realJson(t.submissions));
  const template = realJson<{ cik: number; entityName: string; facts: Parameters<typeof foreignFacts>[0] }>(t.facts);
  const facts = foreign ? { cik: template.cik, entityName: template.entityName, facts: foreignFacts(template.facts, usdFiler) } : template;
  const parsed = placement === null ? null : parseCompanyFacts(facts, t.ticker, undefined, { financial: isFinancialSector(placement.sector) });
  if (parsed === null || placement === null) {
    console.log(`${t.ticker}: unreadable`);
    continue;
  }
  const quarters = discreteQuarters(parsed.reports, asOf);
  // The latest fiscal quarter known at `asOf`, its latest version (the reports also hold earlier periods' versions from later filings).
  const latest = parsed.reports
    .filter((r) => r.disclosedOn <= asOf)
    .sort((a, b) => a.fiscalYear - b.fiscalYear || a.fiscalQuarter - b.fiscalQuarter || a.disclosedOn.localeCompare(b.disclosedOn))
    .at(-1);
  const shares = latest?.shares ?? 0;
  const price = { date: asOf, close: 100, shares, marketCap: 100 * shares };
  const metrics = stockMetrics(quarters, price, 'USD', { financial: isFinancialSector(placement.sector) });
  const nulls = PERCENTILE_METRICS.filter((k) => metrics[k].value === null);
  for (const k of PERCENTILE_METRICS) {
    const count = tally.get(k) as { value: number; applicable: number };
    if (metrics[k].value !== null) count.value += 1;
    if (metrics[k].value !== null || !(metrics[k].reason ?? '').startsWith('not applicable')) count.applicable += 1;
  }
  console.log(`${t.ticker}${foreign ? ' (foreign copy)' : ''} (${placement.sector}; latest ${latest ? `${latest.fiscalYear}Q${latest.fiscalQuarter} ${latest.periodEnd} filed ${latest.disclosedOn}` : 'none'}): ${PERCENTILE_METRICS.length - nulls.length}/${PERCENTILE_METRICS.length} with a value`);
  for (const k of nulls) console.log(`  ${k}: ${metrics[k].reason ?? ''}`);
}
console.log(`\nper metric, templates with a value / applicable${foreign ? ' (foreign copies)' : ''}:`);
for (const [k, { value, applicable }] of tally) console.log(`  ${k}: ${value}/${applicable}`);
