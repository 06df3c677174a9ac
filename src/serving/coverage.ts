// The coverage report: per market, how many listed stocks the service answers with values, and
// for the rest why their values are null (no price yet, no filings yet, a metric the company's
// filings do not carry, ...), so "complete" is a number. Pure: computed once from what a
// published dataset holds (its stock views and the securities the store lists), never per call.

import type { Market, Security } from '../domain/model.js';
import { PERCENTILE_METRICS, type PercentileMetricKey, type SnapshotGroups, type SnapshotMetric } from '../domain/results.js';

/**
 * Why a value is null, in categories a person can act on. The reasons themselves are the
 * domain's sentences (src/domain/v3.ts, ttm.ts, snapshot.ts); `nullReasonOf` sorts them.
 * - `noPrice`: no price bar yet (or none in the last 60 days);
 * - `noFilingsYet`: no quarterly report disclosed for the company yet;
 * - `filingsIncomplete`: some quarters are there, one the TTM needs is missing;
 * - `notCovered`: the filings do not carry the item (a company that does not report net income
 *   every quarter, an industrial filer without a current/non-current split);
 * - `undefinedForCompany`: the inputs are there but the metric is undefined (a loss for PER,
 *   a zero or negative denominator, a factor that does not exist): not a gap in the data (the
 *   filings are complete and say the figure does not exist), so such a stock is outside the
 *   metric's `applicable` count;
 * - `notApplicable`: the metric does not exist for the kind of company (a bank's current ratio,
 *   src/domain/financials.ts; any reason starting `not applicable`): not a gap in the data
 *   either, and outside `applicable` too;
 * - `noFlows`: no investor-type flows or traded value for the score's supply input;
 * - `noFxRate`: no USD/KRW rate, which a US stock's score needs;
 * - `other`: a reason none of the above describes.
 */
export const NULL_REASONS = ['noPrice', 'noFilingsYet', 'filingsIncomplete', 'notCovered', 'undefinedForCompany', 'notApplicable', 'noFlows', 'noFxRate', 'other'] as const;
export type NullReason = (typeof NULL_REASONS)[number];
export type NullCounts = Record<NullReason, number>;

/** The tools whose per-stock answers the report counts. */
export const COVERAGE_TOOLS = ['get_stock_score', 'get_rankings', 'get_stock_snapshot'] as const;
export type CoverageTool = (typeof COVERAGE_TOOLS)[number];

export interface MarketCoverage {
  market: Market;
  /** Securities the store lists for the market (served or not). */
  listed: number;
  /** Served with a price. */
  priced: number;
  /** With a V3 score (the rankings' rows). */
  scored: number;
  /** `scored / listed`, 0..1 to four decimals; 0 when nothing is listed. */
  complete: number;
}

export interface ToolCoverage {
  tool: CoverageTool;
  market: Market;
  listed: number;
  /** Stocks the tool answers with values (score: a score; snapshot: at least one metric). */
  withValues: number;
  /** The other stocks, by why their values are null; the counts add up to `listed - withValues`. */
  nulls: NullCounts;
  /** `withValues / listed`, 0..1 to four decimals. */
  complete: number;
}

export interface MetricCoverage {
  /** A percentile metric (`PERCENTILE_METRICS`, e.g. `per`, `currentRatio`) or a snapshot-only one (e.g. `operatingCashFlow`). */
  metric: string;
  market: Market;
  /** One of the 17 percentile metrics (screenable, ranked in cohorts). */
  percentile: boolean;
  /** Securities the store lists for the market (served or not). */
  listed: number;
  /**
   * Those the metric applies to: `listed` less the stocks for which it does not exist, by kind of
   * company (`notApplicable`) or by the company's own complete figures (`undefinedForCompany`,
   * e.g. PER of a loss).
   */
  applicable: number;
  /** Stocks with a value. */
  withValues: number;
  /** `withValues / applicable`, 0..1 to four decimals; 0 when it applies to none. */
  complete: number;
  /** The other listed stocks by why the value is null; the counts add up to `listed - withValues`. */
  nulls: NullCounts;
}

export interface CoverageReport {
  asOf: string;
  markets: MarketCoverage[];
  tools: ToolCoverage[];
  /**
   * Each metric per market over the listed stocks: the 17 percentile metrics first (in
   * `PERCENTILE_METRICS` order), then the snapshot's other metrics; a listed stock not served
   * counts as `noPrice` for every one.
   */
  metrics: MetricCoverage[];
}

const MARKETS: readonly Market[] = ['KR', 'US'];

/** Sorts one of the domain's null reasons into its category (`NULL_REASONS`). */
export function nullReasonOf(reason: string): NullReason {
  // `not applicable to financial companies` (NOT_APPLICABLE_TO_FINANCIALS) and any other such reason.
  if (/^not applicable/.test(reason)) return 'notApplicable';
  if (/no price on or before/.test(reason)) return 'noPrice';
  if (/no quarterly report disclosed/.test(reason)) return 'noFilingsYet';
  if (/no filing for|filed only|fewer than four quarters/.test(reason)) return 'filingsIncomplete';
  if (/USD\/KRW/.test(reason)) return 'noFxRate';
  if (/investor-type flows|traded value|no trading day/.test(reason)) return 'noFlows';
  if (/not reported/.test(reason)) return 'notCovered';
  if (/not positive|is zero|undefined|no interest expense|no net income for/.test(reason)) return 'undefinedForCompany';
  return 'other';
}

/**
 * Where a stock has no value at all, the category that explains it first: missing filings
 * before a missing price, before what the filings do not carry.
 */
const PRIORITY: readonly NullReason[] = ['noFilingsYet', 'filingsIncomplete', 'noPrice', 'notCovered', 'noFxRate', 'noFlows', 'undefinedForCompany', 'notApplicable', 'other'];

export const emptyNullCounts = (): NullCounts => Object.fromEntries(NULL_REASONS.map((r) => [r, 0])) as NullCounts;

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

/** What the report reads of a served stock (a StockView, ./dataset.ts). */
export interface CoveredStock {
  security: Pick<Security, 'market' | 'code'>;
  price: object | null;
  v3: { ok: true } | { ok: false; reason: string };
  snapshot: SnapshotGroups;
  /** The 17 percentile metrics' values (a StockView's `metricValues`). */
  metricValues: Record<PercentileMetricKey, { value: number | null; reason?: string }>;
}

const PERCENTILE_KEYS: ReadonlySet<string> = new Set(PERCENTILE_METRICS);

/**
 * The report for one dataset. `views`: the served stocks; `listed`: every security the store
 * holds (a security without a view is not served yet and counts as `noPrice` for every tool).
 */
export function coverageOf(asOf: string, views: Iterable<CoveredStock>, listed: Iterable<Pick<Security, 'market' | 'code'>>): CoverageReport {
  const markets = new Map<Market, MarketCoverage>(MARKETS.map((m) => [m, { market: m, listed: 0, priced: 0, scored: 0, complete: 0 }]));
  const tools = new Map<string, ToolCoverage>();
  const metrics = new Map<string, MetricCoverage>();
  const tool = (name: CoverageTool, market: Market): ToolCoverage => {
    const key = `${name}:${market}`;
    let entry = tools.get(key);
    if (entry === undefined) tools.set(key, (entry = { tool: name, market, listed: 0, withValues: 0, nulls: emptyNullCounts(), complete: 0 }));
    return entry;
  };
  for (const name of COVERAGE_TOOLS) for (const market of MARKETS) tool(name, market);
  // Looked up per market by position (percentile metrics) or by name (the snapshot's others),
  // once per stock and metric: no key strings built in the loop.
  const metric = (name: string, market: Market): MetricCoverage => {
    const key = `${name}:${market}`;
    let entry = metrics.get(key);
    if (entry === undefined) metrics.set(key, (entry = { metric: name, market, percentile: PERCENTILE_KEYS.has(name), listed: 0, applicable: 0, withValues: 0, complete: 0, nulls: emptyNullCounts() }));
    return entry;
  };
  for (const name of PERCENTILE_METRICS) for (const market of MARKETS) metric(name, market);
  const perMarket = new Map(
    MARKETS.map((market) => [
      market,
      {
        percentile: PERCENTILE_METRICS.map((name) => metric(name, market)),
        others: new Map<string, MetricCoverage>(),
        score: tool('get_stock_score', market),
        rankings: tool('get_rankings', market),
        snapshot: tool('get_stock_snapshot', market),
      },
    ]),
  );
  const count1 = (entry: MetricCoverage, value: { value: number | null; reason?: string | undefined }): NullReason | null => {
    entry.listed++;
    if (value.value !== null) {
      entry.withValues++;
      return null;
    }
    const why = nullReasonOf(value.reason ?? '');
    entry.nulls[why]++;
    return why;
  };

  const served = new Set<string>();
  for (const view of views) {
    const market = view.security.market;
    served.add(`${market}:${view.security.code}`);
    const m = markets.get(market) as MarketCoverage;
    const at = perMarket.get(market) as NonNullable<ReturnType<typeof perMarket.get>>;
    m.listed++;
    if (view.price !== null) m.priced++;
    if (view.v3.ok) m.scored++;
    for (const t of [at.score, at.rankings]) {
      t.listed++;
      if (view.v3.ok) t.withValues++;
      else t.nulls[nullReasonOf(view.v3.reason)]++;
    }
    at.snapshot.listed++;
    let anyValue = false;
    let first: NullReason = 'other';
    for (let i = 0; i < PERCENTILE_METRICS.length; i++) count1(at.percentile[i] as MetricCoverage, view.metricValues[PERCENTILE_METRICS[i] as PercentileMetricKey]);
    for (const group of Object.values(view.snapshot) as Record<string, SnapshotMetric>[]) {
      for (const name in group) {
        const value = group[name] as SnapshotMetric;
        let why: NullReason | null;
        // A percentile metric the snapshot also shows is counted once, from the percentile values.
        if (PERCENTILE_KEYS.has(name)) why = value.value === null ? nullReasonOf(value.reason ?? '') : null;
        else {
          let entry = at.others.get(name);
          if (entry === undefined) at.others.set(name, (entry = metric(name, market)));
          why = count1(entry, value);
        }
        if (why === null) anyValue = true;
        else if (PRIORITY.indexOf(why) < PRIORITY.indexOf(first)) first = why;
      }
    }
    if (anyValue) at.snapshot.withValues++;
    else at.snapshot.nulls[first]++;
  }
  for (const security of listed) {
    if (served.has(`${security.market}:${security.code}`)) continue;
    const m = markets.get(security.market) as MarketCoverage;
    const at = perMarket.get(security.market) as NonNullable<ReturnType<typeof perMarket.get>>;
    m.listed++;
    for (const t of [at.score, at.rankings, at.snapshot]) {
      t.listed++;
      t.nulls.noPrice++;
    }
    for (const entry of [...at.percentile, ...at.others.values()]) {
      entry.listed++;
      entry.nulls.noPrice++;
    }
  }
  for (const m of markets.values()) m.complete = ratio(m.scored, m.listed);
  for (const t of tools.values()) t.complete = ratio(t.withValues, t.listed);
  for (const entry of metrics.values()) Object.assign(entry, applicableOf(entry));
  return { asOf, markets: [...markets.values()], tools: [...tools.values()], metrics: [...metrics.values()] };
}

/**
 * A metric line's `applicable` and `complete` from its counts: the listed stocks less those for
 * which the metric does not exist (`notApplicable`, `undefinedForCompany`), and the share of
 * them with a value.
 */
export function applicableOf(m: Pick<MetricCoverage, 'listed' | 'withValues' | 'nulls'>): Pick<MetricCoverage, 'applicable' | 'complete'> {
  const applicable = m.listed - m.nulls.notApplicable - m.nulls.undefinedForCompany;
  return { applicable, complete: ratio(m.withValues, applicable) };
}

/** Where the service keeps the served dataset's report in the store's meta, for the CLI's `sources`. */
export const COVERAGE_META_KEY = 'coverage';

/** A report as the CLI reads it back from the store's meta; null when none is kept or it does not parse. */
export function readCoverage(json: string | null): CoverageReport | null {
  if (json === null) return null;
  try {
    const parsed = JSON.parse(json) as Partial<CoverageReport> | null;
    return parsed !== null && typeof parsed.asOf === 'string' && Array.isArray(parsed.markets) && Array.isArray(parsed.tools) && Array.isArray(parsed.metrics) ? (parsed as CoverageReport) : null;
  } catch {
    return null;
  }
}

const count = (n: number): string => n.toLocaleString('en-US');
const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)} %`;
const nullsText = (nulls: NullCounts): string =>
  NULL_REASONS.filter((r) => nulls[r] > 0)
    .map((r) => `${r} ${count(nulls[r])}`)
    .join(', ');

/**
 * The report as lines for a terminal (the CLI's `sources`): per market listed / priced / scored
 * and complete, then per tool and market the stocks with values and the nulls by reason.
 */
export function coverageLines(report: CoverageReport): string[] {
  const lines = [`coverage of the served dataset as of ${report.asOf}`];
  for (const m of report.markets) {
    lines.push(`  ${m.market}  listed ${count(m.listed)}, priced ${count(m.priced)}, scored ${count(m.scored)}: complete ${percent(m.complete)}`);
  }
  const width = Math.max(...report.tools.map((t) => t.tool.length));
  for (const t of report.tools) {
    const nulls = nullsText(t.nulls);
    lines.push(`  ${t.tool.padEnd(width)}  ${t.market}  ${count(t.withValues)} of ${count(t.listed)} with values (${percent(t.complete)})${nulls ? `; null: ${nulls}` : ''}`);
  }
  return lines;
}

/** The coverage target per metric (issue 40): a value for at least this share of the stocks it applies to, in each market. */
export const METRIC_TARGET = 0.9;

/**
 * The per-metric coverage as a Markdown table (the README's "Coverage" section, the rehearsal's
 * printout): per metric and market, the stocks with a value of those it applies to, and the rest
 * by why the value is null (only the non-zero categories; `notApplicable` and
 * `undefinedForCompany` are outside `applicable`). Percentile metrics first, marked `*` below the target.
 */
export function coverageMetricTable(report: CoverageReport): string[] {
  const names = [...new Set(report.metrics.map((m) => m.metric))];
  const cell = (m: MetricCoverage | undefined): [string, string] => {
    if (m === undefined) return ['-', '-'];
    const below = m.percentile && m.applicable > 0 && m.complete < METRIC_TARGET ? ' *' : '';
    return [`${count(m.withValues)} / ${count(m.applicable)} (${percent(m.complete)})${below}`, nullsText(m.nulls) || '-'];
  };
  const lines = ['| metric | KR with a value / applicable | KR without, by reason | US with a value / applicable | US without, by reason |', '|---|---|---|---|---|'];
  for (const name of names) {
    const kr = cell(report.metrics.find((m) => m.metric === name && m.market === 'KR'));
    const us = cell(report.metrics.find((m) => m.metric === name && m.market === 'US'));
    const label = report.metrics.some((m) => m.metric === name && m.percentile) ? `\`${name}\`` : `\`${name}\` (snapshot only)`;
    lines.push(`| ${label} | ${kr[0]} | ${kr[1]} | ${us[0]} | ${us[1]} |`);
  }
  return lines;
}
