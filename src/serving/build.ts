// The dataset snapshot builder: computes, for the whole universe at once, everything the
// calculated tools serve (V3 inputs and rankings, score percentiles, TTM snapshots, the 17
// cohort percentiles), so that serving is a lookup. Pure: data in, snapshot out.

import { barAsOf } from '../domain/bars.js';
import { isFinancialSector } from '../domain/financials.js';
import type { FinancialReport, FlowDay, FxRate, Market, SnapshotBar, SectorExportMonth, TradeMonth } from '../domain/model.js';
import type { PercentileEntry, RankingRow } from '../domain/results.js';
import { englishNameOf } from '../domain/model.js';
import { rankingIndex, type RankingIndex } from '../domain/rankings.js';
import { keyedEntry, searchIndexOfKeyed, type KeyedSearchEntry, type SearchIndex } from '../domain/search.js';
import { percentileRanker } from '../domain/score.js';
import { cohortRanker, percentileValuesOf, perShareOnBasisOf, snapshotGroups, stockMetricsOfView, withListedShares, type PercentileValues, type PricePoint } from '../domain/snapshot.js';
import { filerNoteOf } from '../domain/filer-basis.js';
import { firstKnownVersions, hasLaterVersion, markRestated } from '../domain/restated.js';
import { discreteQuarters, ttmOfQuarters } from '../domain/ttm.js';
import { NO_PRICE_CHANGES, type PriceChanges, type SplitEvent } from '../domain/price-change.js';
import { fxRateAsOf, marketCapBand, rankingRowAsOf, SUPPLY_WINDOW_DAYS } from '../domain/v3.js';
import type { ServedSecurity, StockFigures, StockView, V3Outcome } from './dataset.js';

/** Calendar days back the builder looks for bars: the 20-trading-day supply window plus slack. */
export const RECENT_DAYS = 60;
/** Bars per stock the builder uses: the last one (the price) back to the close before the supply window. */
export const SNAPSHOT_BARS = SUPPLY_WINDOW_DAYS + 1;
/**
 * Fiscal quarters per stock the builder uses, counting back from the latest disclosed one:
 * the TTM and the TTM four quarters earlier span eight, and deriving the earliest of them
 * from year-to-date figures needs the one before it.
 */
export const SNAPSHOT_QUARTERS = 9;

/** A security that left its market's listing by the snapshot's date: its last trading day. */
export interface DelistedSecurity {
  security: ServedSecurity;
  delistedOn: string;
}

export interface UniverseData {
  /** The securities listed on the snapshot's date (src/serving/served.ts `loadUniverse`). */
  securities: readonly ServedSecurity[];
  /** Those delisted by the snapshot's date, kept with their history; none when absent. */
  delisted?: readonly DelistedSecurity[];
  /**
   * Each security's filings, at least those of its last SNAPSHOT_QUARTERS fiscal quarters
   * disclosed by `asOf` (all of them where that window holds fewer than four quarters).
   */
  reports: ReadonlyMap<number, readonly FinancialReport[]>;
  /** Each security's last SNAPSHOT_BARS (or more) bars of the last RECENT_DAYS calendar days, ascending. */
  recentBars: ReadonlyMap<number, readonly SnapshotBar[]>;
  recentFlows: ReadonlyMap<number, readonly FlowDay[]>;
  fx: readonly FxRate[];
  trade: readonly TradeMonth[];
  sectorExports: readonly SectorExportMonth[];
  /** Each security's split-consistent price change over 1, 3 and 12 months (serving/price-changes.ts); none: all null. */
  priceChanges?: ReadonlyMap<number, PriceChanges>;
  /**
   * Each KR security's split events up to the as-of date (`bar_splits`), ascending: its filings'
   * per-share figures are put on the as-of date's share basis (`perShareOnBasisOf`). None: as filed.
   */
  splits?: ReadonlyMap<number, readonly SplitEvent[]>;
  /**
   * Each KR security's listed shares at the period ends its EPS needs them (`listedSharesWanted`):
   * the last bar's on or before each, as the feed gives them. None: no listed-share counts.
   */
  listedShares?: ReadonlyMap<number, ReadonlyMap<string, number>>;
}

export interface ComputedSnapshot {
  asOf: string;
  /** Keyed `${market}:${code}`. */
  views: Map<string, StockView>;
  rankings: RankingIndex;
  /** search_stocks' index over every stock's names and code, built once per snapshot. */
  search: SearchIndex;
  trade: readonly TradeMonth[];
  sectorExports: readonly SectorExportMonth[];
  usdKrw: FxRate | null;
  counts: { securities: number; scored: number; unscored: number };
  /** Every security the store lists, served or not (the coverage report's `listed`). */
  listed: readonly ServedSecurity[];
  /** The securities delisted by `asOf`, by `${market}:${code}`. */
  delisted: ReadonlyMap<string, DelistedSecurity>;
  /** What the snapshot used, as an as-of answer states it (src/serving/as-of.ts). */
  used: SnapshotUse;
}

/**
 * The last session and the last disclosure a snapshot used: the universe's (the latest price date
 * and filing disclosure date on or before the as-of date), and each stock's (by view key).
 */
export interface SnapshotUse {
  lastSession: string | null;
  lastDisclosure: string | null;
  /** Each stock's latest disclosure date on or before the as-of date; absent for a stock with none. */
  disclosures: ReadonlyMap<string, string>;
}

export const viewKey = (market: Market, code: string): string => `${market}:${code}`;

export function computeSnapshot(universe: UniverseData, asOf: string): ComputedSnapshot {
  const steps = snapshotSteps(universe, asOf);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `computeSnapshot` that lets the event loop run every `chunk` stocks, so a serving instance
 * keeps answering while it recomputes (at full size the computation alone takes ~0.5 s).
 */
export async function computeSnapshotYielding(universe: UniverseData, asOf: string, chunk = STOCKS_PER_STEP): Promise<ComputedSnapshot> {
  const steps = snapshotSteps(universe, asOf, chunk);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Stocks computed between two pauses of `computeSnapshotYielding` (~2 ms of work). */
export const STOCKS_PER_STEP = 50;

/**
 * `security`'s figures as of `asOf` from its part of `universe` (its filings, recent bars, split
 * events and listed shares): the point-in-time TTM and the snapshot's metrics, as the universe's
 * computation makes them for every stock. `get_stock_snapshot` as of a day needs no more than this
 * (src/serving/as-of.ts), so it reads no flows or price changes and ranks no cohort.
 */
export function stockFigures(security: ServedSecurity, universe: UniverseData, asOf: string): { figures: StockFigures; lastDisclosure: string | null } {
  const { price, metrics, filer, disclosed } = stockFiguresOf(security, universe, asOf);
  return { figures: { security, price, snapshot: snapshotGroups(metrics), ...(filer ? { filer } : {}) }, lastDisclosure: disclosed };
}

/** The figures of one stock that both the universe's computation and `stockFigures` make. */
function stockFiguresOf(security: ServedSecurity, universe: UniverseData, asOf: string) {
  const filed = universe.reports.get(security.id) ?? [];
  // KR filings state per-share figures on their own date's share basis and no share count:
  // both are put on the as-of date's basis here (US filings are restated when read).
  let reports = filed;
  if (security.market === 'KR') {
    const splits = universe.splits?.get(security.id) ?? [];
    const listed = universe.listedShares?.get(security.id);
    if (splits.length > 0) reports = perShareOnBasisOf(reports, splits, asOf);
    if (listed) reports = withListedShares(reports, listed, splits, asOf);
  }
  const bars = universe.recentBars.get(security.id) ?? [];
  const last = barAsOf(bars, asOf);
  const price: PricePoint | null = last ? { date: last.date, close: last.close, shares: last.shares, marketCap: last.marketCap } : null;
  let disclosed: string | null = null;
  for (const r of filed) if (r.disclosedOn <= asOf && (disclosed === null || r.disclosedOn > disclosed)) disclosed = r.disclosedOn;
  // One derivation of the point-in-time quarters and TTM serves V3, the snapshot and the percentiles.
  const ttm = ttmOfQuarters(discreteQuarters(reports, asOf));
  const metricOptions = { financial: isFinancialSector(security.sector) };
  let metrics = stockMetricsOfView(ttm, price, security.currency, metricOptions);
  // A period filed in more than one version by asOf: the figures a later version changed say so,
  // with the figure of the first-known versions beside them (src/domain/restated.ts).
  if (hasLaterVersion(reports, asOf)) {
    const firstKnown = stockMetricsOfView(ttmOfQuarters(discreteQuarters(firstKnownVersions(reports, asOf), asOf)), price, security.currency, metricOptions);
    metrics = markRestated(metrics, firstKnown);
  }
  return { reports, bars, ttm, price, disclosed, metrics, filer: filerNoteOf(security, ttm) };
}

/** A cohort's size and how to rank one stock's 17 metric values in it. */
type CohortRanker = { members: number; rank: (v: PercentileValues) => PercentileEntry[] };

/** A stock's percentile entries in its sector's cohort and its market's, from the rankers of every cohort (each stock's two are among them). */
function percentilesOf(rankers: ReadonlyMap<string, CohortRanker>, security: ServedSecurity, values: PercentileValues): ReturnType<StockView['percentiles']> {
  const sector = rankers.get(`${security.market}:${security.sector}`) as CohortRanker;
  const market = rankers.get(security.market) as CohortRanker;
  return {
    sector: { name: security.sector, members: sector.members, metrics: sector.rank(values) },
    market: { name: security.market, members: market.members, metrics: market.rank(values) },
  };
}

/** The computation, pausing (yielding) after every `chunk` stocks and before the cohort ranks. */
export function* snapshotSteps(universe: UniverseData, asOf: string, chunk = STOCKS_PER_STEP): Generator<void, ComputedSnapshot> {
  const fx = fxRateAsOf(universe.fx, asOf);
  const views = new Map<string, StockView>();
  // The cohorts' rankers by cohort key (`market:sector`, or the market): filled once every stock's values are in.
  const rankers = new Map<string, CohortRanker>();
  const rows: RankingRow[] = [];
  const metricValues = new Map<string, PercentileValues>();
  const sectorMembers = new Map<string, string[]>();
  const marketMembers: Record<Market, string[]> = { KR: [], US: [] };
  const searchEntries: KeyedSearchEntry[] = [];
  const disclosures = new Map<string, string>();
  let lastSession: string | null = null;
  let lastDisclosure: string | null = null;

  let sinceStep = 0;
  for (const security of universe.securities) {
    if (++sinceStep > chunk) {
      sinceStep = 1;
      yield;
    }
    const key = viewKey(security.market, security.code);
    const { reports, bars, ttm, price, disclosed, metrics, filer } = stockFiguresOf(security, universe, asOf);
    const flows = universe.recentFlows.get(security.id) ?? [];
    if (price !== null && (lastSession === null || price.date > lastSession)) lastSession = price.date;
    if (disclosed !== null) {
      disclosures.set(key, disclosed);
      if (lastDisclosure === null || disclosed > lastDisclosure) lastDisclosure = disclosed;
    }

    const ranked = rankingRowAsOf(security, { reports, bars, flows, usdKrw: fx?.usdKrw ?? null, asOf, ttm });
    let v3: V3Outcome;
    if (ranked.row) {
      rows.push(ranked.row);
      v3 = {
        ok: true,
        inputs: ranked.inputs,
        result: { score: ranked.row.score, expectedReturn: ranked.row.gapPct, gapPct: ranked.row.gapPct },
        targetPrice: ranked.row.targetPrice,
        referenceQuarter: ranked.details.referenceQuarter,
        disclosedOn: ranked.details.disclosedOn,
        supply: { days: ranked.details.supplyDays, flowDays: ranked.details.supplyFlowDays, sources: ranked.details.supplySources },
      };
    } else {
      v3 = { ok: false, reason: ranked.reason };
    }

    const values = percentileValuesOf(metrics);
    metricValues.set(key, values);
    const sectorKey = `${security.market}:${security.sector}`;
    const members = sectorMembers.get(sectorKey);
    if (members) members.push(key);
    else sectorMembers.set(sectorKey, [key]);
    marketMembers[security.market].push(key);

    const band = price ? marketCapBand(security.market, price.marketCap) : null;
    // The stock's 34 percentile entries, made the first time they are asked for, from the cohorts' rankers (below).
    let percentiles: ReturnType<StockView['percentiles']> | undefined;
    // search_stocks' keys (NFKC of three strings) with the stock, so the index is only a sort.
    searchEntries.push(
      keyedEntry({
        market: security.market,
        code: security.code,
        name: security.name,
        nameEn: englishNameOf(security),
        exchange: security.exchange,
        sector: security.sector,
        currency: security.currency,
        band,
        marketCap: price?.marketCap ?? null,
      }),
    );
    views.set(key, {
      security,
      price,
      band,
      ...(filer ? { filer } : {}),
      v3,
      scorePercentile: null,
      scoreCohortSize: 0,
      snapshot: snapshotGroups(metrics),
      metricValues: values,
      // From the same last bar as `price`: a stock without a price has no price change either.
      priceChanges: (price && universe.priceChanges?.get(security.id)) || NO_PRICE_CHANGES,
      // A function, not a getter: an accessor makes each view a dictionary-mode object (slower to
      // read, and ~0.5 KB more a stock in every computed day).
      percentiles: () => (percentiles ??= percentilesOf(rankers, security, values)),
    });
  }

  yield;
  // get_stock_score: the V3 score's percentile within the stock's own market.
  for (const market of ['KR', 'US'] as const) {
    const scored = rows.filter((r) => r.market === market);
    const rank = percentileRanker(scored.map((r) => r.score));
    for (const row of scored) {
      const view = views.get(viewKey(market, row.ticker));
      if (!view) continue;
      view.scorePercentile = rank(row.score);
      view.scoreCohortSize = scored.length;
    }
    for (const key of marketMembers[market]) {
      const view = views.get(key);
      if (view) view.scoreCohortSize = scored.length;
    }
  }

  // The 17 metrics' percentiles, per sector cohort and per market cohort: each cohort's
  // metrics are sorted here, and a stock's 34 entries are made the first time it is asked for
  // (most stocks never are between two refreshes; making them all was a quarter of the compute).
  // One cohort per step: a market's (up to ~4,400 stocks at full size) sorts 17 arrays.
  const cohorts: [string, readonly string[]][] = [...sectorMembers, ...(['KR', 'US'] as const).map((m): [string, readonly string[]] => [m, marketMembers[m]])];
  for (const [cohortKey, members] of cohorts) {
    yield;
    rankers.set(cohortKey, { members: members.length, rank: cohortRanker(members.map((k) => metricValues.get(k) as PercentileValues)) });
  }

  yield;
  const search = searchIndexOfKeyed(searchEntries, fx?.usdKrw ?? null);
  yield;
  const rankingsIndex = rankingIndex(rows);

  return {
    asOf,
    views,
    rankings: rankingsIndex,
    search,
    trade: universe.trade,
    sectorExports: universe.sectorExports,
    usdKrw: fx,
    counts: { securities: universe.securities.length, scored: rows.length, unscored: universe.securities.length - rows.length },
    listed: universe.securities,
    delisted: new Map((universe.delisted ?? []).map((d) => [viewKey(d.security.market, d.security.code), d])),
    used: { lastSession, lastDisclosure, disclosures },
  };
}
