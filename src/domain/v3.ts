// The V3 formula exactly as published (docs/calculations.md, "V3 score"), its inputs as known
// on a date, and the published market-cap bands.

import { ascendingByDate, lastIndexAsOf } from './bars.js';
import { changePct, changeRatio } from './change.js';
import { currencyOf, englishNameOf } from './model.js';
import type { DailyBar, FinancialReport, FlowDay, FxRate, Market, SnapshotBar, Security } from './model.js';
import type { BandKey, Formula, RankingRow, V3Inputs, V3Result } from './results.js';
import { ttmAsOf, type TtmView } from './ttm.js';

/** Trading days in the supply/demand window (the last 20 trading days). */
export const SUPPLY_WINDOW_DAYS = 20;

/** Parameters of the published gap line: expectedReturn = -2.25 + 1.05 x sqrt(score). */
export const GAP_INTERCEPT = -2.25;
export const GAP_SLOPE = 1.05;

export const V3_FORMULA: Formula = {
  score:
    'score = max(0, min(yoy, 300) / 100) x sqrt(ttmNiEok) x (1 + supplyPct / 30) x (1 + momentum); ' +
    'if any factor would be negative (including ttmNiEok <= 0 under the square root) the score is 0. ' +
    'yoy = (TTM net income - TTM net income four quarters earlier) / |TTM net income four quarters earlier| x 100, ' +
    'net income attributable to owners of the parent, TTM = the last four reported quarters as disclosed on the day. ' +
    'ttmNiEok = TTM net income in units of 100 million won (US stocks: USD converted at the day\'s USD/KRW rate). ' +
    'supplyPct: KR = (foreign + institutional net buying over the last 20 trading days) / (total traded value over those days) x 100; ' +
    'US = (sum over the last 20 trading days of traded value x sign(close - previous close)) / (total traded value over those days) x 100. ' +
    'momentum = (latest quarter net income - the same quarter a year earlier) / |the same quarter a year earlier|, as a fraction.',
  expectedReturn: 'expectedReturn = -2.25 + 1.05 x sqrt(score), in percent over about one year.',
  targetPrice: 'targetPrice = currentPrice x (1 + gapPct / 100), rounded to the whole won (KR) or to the cent (US).',
  gap: 'gapPct = expectedReturn = -2.25 + 1.05 x sqrt(score): the upside versus the current price in percent; rows are sorted by gapPct, highest first.',
  backtest:
    'The gap parameters (-2.25 and 1.05) come from a one-year-return backtest over all Korean market-cap bands ' +
    'for a fixed past period (that backtest\'s period and data are not stated); the upside is about a one-year horizon. ' +
    'The same kind of test runs on the served data, every figure as known on each rebalance day: ' +
    'npm run cli -- backtest --market KR --from 2016-01 --by score --top 20 --hold 12 (docs/calculations.md, "Backtest").',
};

/**
 * score = max(0, min(yoy, 300)/100) x sqrt(ttmNiEok) x (1 + supplyPct/30) x (1 + momentum).
 * A factor that would be negative makes the score 0 rather than letting
 * two negative factors multiply into a positive score; sqrt of a non-positive ttmNiEok is 0.
 */
export function v3Score(inputs: Pick<V3Inputs, 'yoy' | 'ttmNiEok' | 'supplyPct' | 'momentum'>): number {
  const growth = Math.max(0, Math.min(inputs.yoy, 300) / 100);
  const supply = 1 + inputs.supplyPct / 30;
  const momentum = 1 + inputs.momentum;
  if (inputs.ttmNiEok <= 0 || supply < 0 || momentum < 0) return 0;
  return growth * Math.sqrt(inputs.ttmNiEok) * supply * momentum;
}

/** expectedReturn = -2.25 + 1.05 x sqrt(score), percent. */
export function expectedReturnOf(score: number): number {
  return GAP_INTERCEPT + GAP_SLOPE * Math.sqrt(score);
}

/** Score, expected return and gap (gapPct = expectedReturn). */
export function v3Result(inputs: V3Inputs): V3Result {
  const score = v3Score(inputs);
  const expectedReturn = expectedReturnOf(score);
  return { score, expectedReturn, gapPct: expectedReturn };
}

/**
 * Rounds half away from zero to `decimals` places. Goes through a 15-significant-digit string
 * first so that binary representation error does not flip a half (1.005 -> 1.01, not 1.00).
 */
export function roundTo(value: number, decimals: number): number {
  const scaled = Number((Math.abs(value) * 10 ** decimals).toPrecision(15));
  return (Math.sign(value) * Math.round(scaled)) / 10 ** decimals;
}

/** targetPrice = currentPrice x (1 + gapPct/100): whole won for KR, the cent for US. */
export function targetPriceOf(market: Market, currentPrice: number, gapPct: number): number {
  return roundTo(currentPrice * (1 + gapPct / 100), market === 'KR' ? 0 : 2);
}

/** TTM net income in 100-million-won units; a US figure is converted at `usdKrw` first. */
export function ttmNiEokOf(market: Market, ttmNetIncome: number, usdKrw: number | null): number {
  if (market === 'KR') return ttmNetIncome / 1e8;
  if (usdKrw === null) throw new Error('ttmNiEokOf: a US figure needs a USD/KRW rate');
  return (ttmNetIncome * usdKrw) / 1e8;
}

/**
 * Market-cap bands, lower bounds inclusive, in the market's currency, as published. KR in
 * won: mega >= 20 trillion, xlarge >= 5 trillion, large >= 1 trillion, mid >= 300 billion. US
 * in dollars: mega >= $200B, xlarge >= $50B, large >= $10B, mid >= $3B. Everything below is small.
 */
export const MARKET_CAP_BANDS: Readonly<Record<Market, Readonly<Record<Exclude<BandKey, 'small'>, number>>>> = {
  KR: { mega: 20e12, xlarge: 5e12, large: 1e12, mid: 3e11 },
  US: { mega: 200e9, xlarge: 50e9, large: 10e9, mid: 3e9 },
};

export function marketCapBand(market: Market, marketCap: number): BandKey {
  const { mega, xlarge, large, mid } = MARKET_CAP_BANDS[market];
  if (marketCap >= mega) return 'mega';
  if (marketCap >= xlarge) return 'xlarge';
  if (marketCap >= large) return 'large';
  if (marketCap >= mid) return 'mid';
  return 'small';
}

/** The USD/KRW rate in force at `asOf`: the latest rate dated on or before it. */
export function fxRateAsOf(fx: readonly FxRate[], asOf: string): FxRate | null {
  let best: FxRate | null = null;
  for (const r of fx) if (r.date <= asOf && (!best || r.date > best.date)) best = r;
  return best;
}

export interface SupplyPct {
  value: number | null;
  reason?: string;
  /** Trading days the figure is over: 20, or fewer when the stock has fewer bars. */
  days: number;
  /** KR: the window's days that have an investor-flow row (the rest count 0 net); US: null (prices only). */
  flowDays: number | null;
  /** KR: the sources of those rows, by name, sorted; US: none (the figure is from the stock's prices). */
  sources: string[];
}

type SupplyBar = Pick<DailyBar, 'date' | 'close' | 'tradedValue'>;

/**
 * supplyPct over the last 20 trading days up to `asOf` (the trading days are the stock's
 * own bars). KR: sum(foreignNet + institutionNet) / sum(tradedValue) x 100; a day without an
 * investor-flow row counts 0 net. US, which has no investor-type data: sum(tradedValue x
 * sign(close - previous close)) / sum(tradedValue) x 100; an unchanged day, and the first day
 * of the history (no previous close), count 0 in the numerator. With fewer than 20 bars the
 * bars that exist are used and `days` says how many. Zero traded value: null.
 */
export function supplyPctAsOf(market: Market, bars: readonly SupplyBar[], flows: readonly FlowDay[], asOf: string): SupplyPct {
  const sorted = ascendingByDate(bars);
  const last = lastIndexAsOf(sorted, asOf);
  const first = Math.max(0, last - SUPPLY_WINDOW_DAYS + 1);
  const days = last - first + 1;
  if (days <= 0) return { value: null, reason: 'no trading day on or before the date', days: 0, flowDays: market === 'KR' ? 0 : null, sources: [] };
  let traded = 0;
  let net = 0;
  let flowDays: number | null = null;
  const sources = new Set<string>();
  if (market === 'KR') {
    const windowDates = new Set<string>();
    for (let i = first; i <= last; i++) windowDates.add((sorted[i] as SupplyBar).date);
    flowDays = 0;
    for (const f of flows) {
      if (!windowDates.has(f.date)) continue;
      flowDays++;
      net += f.foreignNet + f.institutionNet;
      if (f.source !== undefined) sources.add(f.source);
    }
    for (let i = first; i <= last; i++) traded += (sorted[i] as SupplyBar).tradedValue;
    if (flowDays === 0) return { value: null, reason: 'no investor-type flows in the last 20 trading days', days, flowDays, sources: [] };
  } else {
    for (let i = first; i <= last; i++) {
      const bar = sorted[i] as SupplyBar;
      const previous = sorted[i - 1];
      traded += bar.tradedValue;
      if (previous) net += bar.tradedValue * Math.sign(bar.close - previous.close);
    }
  }
  const named = [...sources].sort();
  if (traded === 0) return { value: null, reason: 'no traded value in the last 20 trading days', days, flowDays, sources: named };
  return { value: (net * 100) / traded, days, flowDays, sources: named };
}

export interface V3AsOfInput {
  market: Market;
  /** The stock's filings (any disclosure date; only those known at `asOf` are used). */
  reports: readonly FinancialReport[];
  /** The stock's daily bars. */
  bars: readonly SnapshotBar[];
  /** The stock's investor-type flows (KR); ignored for US. */
  flows: readonly FlowDay[];
  /** Won per dollar at `asOf`; needed for US, ignored for KR. */
  usdKrw: number | null;
  asOf: string;
  /** `ttmAsOf(reports, asOf)` when the caller has already taken it; taken here otherwise. */
  ttm?: TtmView;
}

/** What the inputs were taken from, for the response and for checking. */
export interface V3Details {
  priceDate: string;
  currentPrice: number;
  marketCap: number;
  /** The latest fiscal quarter in the TTM, e.g. `2025Q3`. */
  referenceQuarter: string;
  /** The latest disclosure date among the filings used. */
  disclosedOn: string;
  /** Trading days supplyPct is over (fewer than 20 for a short history). */
  supplyDays: number;
  /** KR: the window's days with an investor-flow row; US: null. */
  supplyFlowDays: number | null;
  /** KR: the sources of those flow rows, by name, sorted; US: none. */
  supplySources: string[];
}

export type V3InputsOrReason = { inputs: V3Inputs; details: V3Details; reason?: undefined } | { inputs: null; details?: undefined; reason: string };

/**
 * The V3 inputs of one stock as known at `asOf`, or why they cannot be formed. A stock with
 * a missing input gets a reason, never a made-up score; a loss-making stock does get inputs
 * (and a score of 0).
 */
export function v3InputsAsOf(input: V3AsOfInput): V3InputsOrReason {
  const { market, asOf } = input;
  const bars = ascendingByDate(input.bars);
  const price = bars[lastIndexAsOf(bars, asOf)];
  if (!price) return { inputs: null, reason: 'no price on or before the date' };
  if (market === 'US' && (input.usdKrw === null || !(input.usdKrw > 0))) return { inputs: null, reason: 'no USD/KRW rate on or before the date' };

  const view = input.ttm ?? ttmAsOf(input.reports, asOf);
  const { ttm } = view.current;
  if (!ttm) return { inputs: null, reason: `no TTM net income: ${view.current.reason}` };
  if (ttm.netIncome === null) return { inputs: null, reason: `no TTM net income: net income not reported in every quarter to ${ttm.referenceQuarter}` };
  const base = view.yearEarlier.ttm;
  if (!base) return { inputs: null, reason: `no TTM net income four quarters earlier: ${view.yearEarlier.reason}` };
  if (base.netIncome === null) return { inputs: null, reason: `no TTM net income four quarters earlier: net income not reported in every quarter to ${base.referenceQuarter}` };
  if (base.netIncome === 0) return { inputs: null, reason: `yoy undefined: TTM net income to ${base.referenceQuarter} is zero` };
  const yoy = changePct(ttm.netIncome, base.netIncome) as number;

  const latest = ttm.end;
  const sameQuarter = view.sameQuarterYearEarlier;
  const yearEarlierLabel = `${latest.fiscalYear - 1}Q${latest.fiscalQuarter}`;
  if (latest.netIncome === null) return { inputs: null, reason: `momentum undefined: no net income for ${ttm.referenceQuarter}` };
  if (!sameQuarter || sameQuarter.netIncome === null) return { inputs: null, reason: `momentum undefined: no net income for ${yearEarlierLabel}` };
  if (sameQuarter.netIncome === 0) return { inputs: null, reason: `momentum undefined: net income for ${yearEarlierLabel} is zero` };
  const momentum = changeRatio(latest.netIncome, sameQuarter.netIncome) as number;

  const supply = supplyPctAsOf(market, bars, input.flows, asOf);
  if (supply.value === null) return { inputs: null, reason: `supplyPct undefined: ${supply.reason ?? ''}` };

  const usdKrw = market === 'US' ? input.usdKrw : null;
  const disclosedOn = [ttm.disclosedOn, base.disclosedOn, sameQuarter.disclosedOn].reduce((a, b) => (a > b ? a : b));
  return {
    inputs: { ttmNiEok: ttmNiEokOf(market, ttm.netIncome, usdKrw), yoy, supplyPct: supply.value, momentum, usdKrw },
    details: {
      priceDate: price.date,
      currentPrice: price.close,
      marketCap: price.marketCap,
      referenceQuarter: ttm.referenceQuarter,
      disclosedOn,
      supplyDays: supply.days,
      supplyFlowDays: supply.flowDays,
      supplySources: supply.sources,
    },
  };
}

export type RankingRowOrReason =
  | { row: RankingRow; inputs: V3Inputs; details: V3Details; reason?: undefined }
  | { row: null; inputs?: undefined; details?: undefined; reason: string };

/** One stock's ranking row as of `asOf` (inputs, V3 result, band, target price). */
export function rankingRowAsOf(security: Pick<Security, 'market' | 'code' | 'name' | 'nameEn'>, input: Omit<V3AsOfInput, 'market'>): RankingRowOrReason {
  const market = security.market;
  const assembled = v3InputsAsOf({ ...input, market });
  if (!assembled.inputs) return { row: null, reason: assembled.reason };
  const { inputs, details } = assembled;
  const result = v3Result(inputs);
  return {
    row: {
      ticker: security.code,
      name: security.name,
      nameEn: englishNameOf(security),
      market,
      currency: currencyOf(market),
      band: marketCapBand(market, details.marketCap),
      marketCap: details.marketCap,
      currentPrice: details.currentPrice,
      targetPrice: targetPriceOf(market, details.currentPrice, result.gapPct),
      gapPct: result.gapPct,
      score: result.score,
      yoy: inputs.yoy,
      ttmNiEok: inputs.ttmNiEok,
      supplyPct: inputs.supplyPct,
      momentumPct: inputs.momentum * 100,
    },
    inputs,
    details,
  };
}
