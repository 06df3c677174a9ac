// `node --import tsx bench/template-metrics.ts [asOf]`: for each recorded SEC companyfacts the
// first-start replica copies (bench/replica/universe.ts, US_TEMPLATES), the service's own
// calculation (parseCompanyFacts -> discreteQuarters -> stockMetrics, the financial flag from the
// template's submissions SIC, given to both as the API adapter and the bulk reader do) and which of the 17 percentile metrics come out null and why.
// A price is needed by the price-based metrics: a close of 100 USD on `asOf` times the latest
// filed share count, so only a missing share count makes them null. `asOf` defaults to the
// rehearsal's clock day (2026-11-25).

import { isFinancialSector } from '../src/domain/financials.js';
import { PERCENTILE_METRICS } from '../src/domain/results.js';
import { stockMetrics } from '../src/domain/snapshot.js';
import { discreteQuarters } from '../src/domain/ttm.js';
import { parseCompanyFacts, parseSubmissions } from '../src/sources/sec/parse.js';
import { realJson } from '../test/e2e/upstream.js';
import { constructedSubmissions } from './replica/api.js';
import { US_TEMPLATES } from './replica/universe.js';

const asOf = process.argv[2] ?? '2026-11-25';

for (const t of US_TEMPLATES) {
  const placement = parseSubmissions(t.submissions === null ? constructedSubmissions(t) : realJson(t.submissions));
  const parsed = placement === null ? null : parseCompanyFacts(realJson(t.facts), t.ticker, undefined, { financial: isFinancialSector(placement.sector) });
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
  console.log(`${t.ticker} (${placement.sector}; latest ${latest ? `${latest.fiscalYear}Q${latest.fiscalQuarter} ${latest.periodEnd} filed ${latest.disclosedOn}` : 'none'}): ${PERCENTILE_METRICS.length - nulls.length}/${PERCENTILE_METRICS.length} with a value`);
  for (const k of nulls) console.log(`  ${k}: ${metrics[k].reason ?? ''}`);
}
