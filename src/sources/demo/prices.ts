// Daily bars and investor flows for one demo stock. The close follows the value the business
// supports (see fundamentals.ts) times a mean-reverting log deviation made of a market factor
// and the stock's own noise, so valuation multiples wander around their sector's norm
// instead of drifting off. On the as-of date the path is pinned to the company's target
// market cap, which is what puts every market-cap band in use.

import type { DailyBar, InvestorFlow, Market } from '../../domain/model.js';
import type { BandKey } from '../../domain/results.js';
import type { CompanyModel } from './fundamentals.js';
import { valueOn } from './fundamentals.js';
import { Rng } from './random.js';
import type { CompanyProfile } from './universe.js';

/** The trading days of one market, with their day numbers, shared by every stock. */
export interface MarketCalendar {
  market: Market;
  dates: readonly string[];
  days: readonly number[];
  /** Log deviation of the whole market from fair value, per trading day. */
  marketFactor: Float64Array;
}

const DAILY_VOLATILITY: Record<BandKey, number> = { mega: 0.014, xlarge: 0.016, large: 0.018, mid: 0.022, small: 0.028 };
/** Daily turnover (shares traded / listed shares): small caps change hands far more often. */
const TURNOVER: Record<BandKey, readonly [number, number]> = {
  mega: [0.001, 0.004],
  xlarge: [0.0015, 0.005],
  large: [0.002, 0.008],
  mid: [0.003, 0.015],
  small: [0.004, 0.03],
};
/** Mean reversion per day of a stock's deviation from its fundamental value (about 5 months). */
const REVERSION = 1 / 110;
/** The pin to the target market cap is phased in over the last year of trading. */
const PIN_DAYS = 250;

/** Market-wide sentiment: an Ornstein-Uhlenbeck path, slower and wider than any stock's. */
export function marketFactorPath(seed: number, market: Market, length: number): Float64Array {
  const rng = new Rng(seed, `market:${market}`);
  const path = new Float64Array(length);
  let x = 0;
  for (let i = 0; i < length; i++) {
    x = x * (1 - 1 / 400) + 0.009 * rng.normal();
    path[i] = x;
  }
  return path;
}

const roundCents = (x: number): number => Math.round(x * 100) / 100;

export function barsFromModel(profile: CompanyProfile, model: CompanyModel, calendar: MarketCalendar, seed: number): DailyBar[] {
  const { market, code } = profile.security;
  const n = calendar.dates.length;
  if (n === 0) return [];
  const rng = new Rng(seed, `bars:${market}:${code}`);
  const kr = market === 'KR';
  const tick = kr ? 1 : 0.01;
  const roundPrice = kr ? Math.round : roundCents;

  let volatility = DAILY_VOLATILITY[profile.band];
  if (profile.archetype === 'biotech') volatility *= 1.4;
  if (profile.archetype === 'cyclical') volatility *= 1.15;
  const beta = rng.uniform(0.6, 1.4);
  const [turnoverLo, turnoverHi] = TURNOVER[profile.band];
  const turnover = rng.logUniform(turnoverLo, turnoverHi);
  const stationary = volatility / Math.sqrt(2 * REVERSION);

  // The stock's own deviation, then the pin: the deviation needed to land on the target cap
  // on the last day, faded in linearly over the final PIN_DAYS so older history stays as drawn.
  // Separate streams for the path and for the day's details, so that day i's draws never
  // depend on how many days there are (older history must not change as asOf moves on).
  const pathRng = new Rng(seed, `path:${market}:${code}`);
  const deviation = new Float64Array(n);
  let x = stationary * pathRng.normal();
  for (let i = 0; i < n; i++) {
    if (i > 0) x = x * (1 - REVERSION) + volatility * pathRng.normal();
    deviation[i] = x + beta * (calendar.marketFactor[i] ?? 0);
  }
  const lastDay = calendar.days[n - 1] ?? 0;
  const pin = Math.log(profile.targetMarketCap) - Math.log(valueOn(model, lastDay)) - (deviation[n - 1] ?? 0);
  const pinStart = Math.max(-1, n - 1 - PIN_DAYS);

  const bars: DailyBar[] = new Array<DailyBar>(n);
  let previousClose = 0;
  let stepIndex = 0;
  let shares = model.shareSteps[0]?.shares ?? 1;
  let valueIndex = 0;
  const quarters = model.quarters;
  for (let i = 0; i < n; i++) {
    const day = calendar.days[i] as number;
    while (stepIndex < model.shareSteps.length && (model.shareSteps[stepIndex]?.fromDay ?? Infinity) <= day) {
      shares = model.shareSteps[stepIndex]?.shares ?? shares;
      stepIndex++;
    }
    while (valueIndex < quarters.length && (quarters[valueIndex]?.periodEndDay ?? Infinity) < day) valueIndex++;
    const value = valueAt(model, valueIndex, day);
    const weight = i <= pinStart ? 0 : (i - pinStart) / (n - 1 - pinStart);
    const marketCap = value * Math.exp((deviation[i] ?? 0) + pin * weight);

    const zGap = rng.normal();
    const zHigh = rng.normal();
    const zLow = rng.normal();
    const zVolume = rng.normal();

    const close = Math.max(tick, roundPrice(marketCap / shares));
    const reference = previousClose > 0 ? previousClose : close;
    const open = Math.max(tick, roundPrice(reference * Math.exp(0.35 * volatility * zGap)));
    const high = Math.max(open, close, roundPrice(Math.max(open, close) * Math.exp(0.5 * volatility * Math.abs(zHigh))));
    const low = Math.max(tick, Math.min(open, close, roundPrice(Math.min(open, close) * Math.exp(-0.5 * volatility * Math.abs(zLow)))));
    const move = previousClose > 0 ? Math.abs(Math.log(close / previousClose)) : 0;
    const volume = Math.max(1, Math.round(shares * turnover * Math.exp(0.45 * zVolume) * (1 + 12 * move)));
    // Money traded at a typical price of the day, which lies within [low, high].
    const typical = (high + low + 2 * close) / 4;
    bars[i] = {
      market,
      code,
      date: calendar.dates[i] as string,
      open,
      high,
      low,
      close,
      volume,
      tradedValue: kr ? Math.round(volume * typical) : roundCents(volume * typical),
      shares,
      marketCap: kr ? close * shares : roundCents(close * shares),
      source: 'demo',
    };
    previousClose = close;
  }
  return bars;
}

/** valueOn, starting the search at the quarter the caller has already reached. */
function valueAt(model: CompanyModel, index: number, day: number): number {
  const q = model.quarters;
  const b = q[index];
  const a = q[index - 1];
  if (b === undefined || a === undefined) return valueOn(model, day);
  const t = (day - a.periodEndDay) / (b.periodEndDay - a.periodEndDay);
  return Math.exp(Math.log(a.value) * (1 - t) + Math.log(b.value) * t);
}

/**
 * Net buying by foreigners and institutions. Each stock has a persistent bias per investor
 * type plus a slowly changing regime, so 20-day sums tell net-bought from net-sold stocks.
 * Each side is at most 45% of the day's traded value, so the two together never exceed it.
 */
export function flowsFromTradedValue(
  profile: CompanyProfile,
  dates: readonly string[],
  tradedValue: Float64Array,
  seed: number,
): InvestorFlow[] {
  const { market, code } = profile.security;
  if (market !== 'KR') return [];
  const rng = new Rng(seed, `flows:${market}:${code}`);
  const foreignBias = rng.uniform(-0.12, 0.12);
  const institutionBias = rng.uniform(-0.1, 0.1);
  let foreignRegime = 0;
  let institutionRegime = 0;
  const clamp = (x: number): number => Math.max(-0.45, Math.min(0.45, x));
  const flows: InvestorFlow[] = new Array<InvestorFlow>(dates.length);
  for (let i = 0; i < dates.length; i++) {
    const value = tradedValue[i] ?? 0;
    foreignRegime = 0.97 * foreignRegime + 0.025 * rng.normal();
    institutionRegime = 0.97 * institutionRegime + 0.025 * rng.normal();
    const foreignShare = clamp(foreignBias + foreignRegime + 0.12 * rng.normal());
    const institutionShare = clamp(institutionBias + institutionRegime + 0.1 * rng.normal());
    flows[i] = {
      market,
      code,
      date: dates[i] as string,
      // `+ 0` turns a negative zero into zero.
      foreignNet: Math.trunc(value * foreignShare) + 0,
      institutionNet: Math.trunc(value * institutionShare) + 0,
      source: 'demo',
    };
  }
  return flows;
}
