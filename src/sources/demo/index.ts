// The embedded demo source: a deterministic, internally consistent universe of invented
// Korean and US companies (prices, shares, quarterly filings, investor flows), USD/KRW and
// Korean trade statistics, so that a fresh checkout serves every tool with no key and no
// network. The company list, FX and trade series are built eagerly (they are small); bars,
// filings and flows are generated per stock on demand, each from its own seed, so a
// full-size universe never has to sit in memory at once.

import type { DailyBar, FinancialReport, FxRate, InvestorFlow, Market, SectorExportMonth, Security, TradeMonth } from '../../domain/model.js';
import { lastClosedSession } from '../../domain/session.js';
import { dayNumber, isTradingDay, tradingDaysBetween } from './calendar.js';
import type { CompanyModel } from './fundamentals.js';
import { buildCompanyModel, reportsFromModel } from './fundamentals.js';
import { generateFx } from './fx.js';
import type { MarketCalendar } from './prices.js';
import { barsFromModel, flowsFromTradedValue, marketFactorPath } from './prices.js';
import { generateTrade } from './trade.js';
import type { CompanyProfile, DemoSize } from './universe.js';
import { buildUniverse } from './universe.js';

export { isTradingDay };
export type { Archetype, CompanyProfile } from './universe.js';

export const DEFAULT_DEMO_SEED = 20140101;
/** First trading day the demo has bars for is the first one on or after this date. */
export const FIRST_BAR_DATE = '2014-01-01';

export interface DemoOptions {
  /** Default 20140101. */
  seed?: number;
  /** `YYYY-MM-DD` treated as today (a Seoul date); the generator never reads the clock. */
  asOf: string;
  /**
   * The instant of generation, passed in (the clock is never read). Each market's bars end at
   * its last session closed by then in its own time zone. Without it, or when it is later than
   * the end of the Seoul day `asOf`, that end is used: KR through `asOf` (closed at 15:30), US
   * through the New York session before it (the session dated `asOf` closes the next Seoul morning).
   */
  now?: Date;
  /** `default` is about 400 KR + 400 US companies; `full` about 2,700 KR + 6,000 US. */
  size?: DemoSize;
  /** Multiplies the company counts (benchmarks use 1, 2, 4); default 1. */
  scale?: number;
}

export interface DemoUniverse {
  /** Sorted by market, then code. */
  securities: Security[];
  /** USD/KRW on every weekday from 2014-01-01 to asOf. */
  fx: FxRate[];
  /** 1990-01 through the last complete month before asOf. */
  trade: TradeMonth[];
  /** The same months, every export sector (summing exactly to the month's exports). */
  sectorExports: SectorExportMonth[];
  /** Ascending trading days of the market from 2014-01-02 through its last closed session (see `now`). */
  tradingDays(market: Market): string[];
  /** One bar per trading day of the security's market (`tradingDays`), ascending. */
  barsFor(security: Security): DailyBar[];
  /** Every filing disclosed on or before asOf, restatements included, in period order. */
  reportsFor(security: Security): FinancialReport[];
  /** KR only (US gives []): one row per trading day. */
  flowsFor(security: Security): InvestorFlow[];
  /** The generator's own view of a company (band, archetype, targets); for tests and docs. */
  profileOf(security: Security): CompanyProfile | undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function generateDemo(options: DemoOptions): DemoUniverse {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const size = options.size ?? 'default';
  const scale = options.scale ?? 1;
  const { asOf } = options;
  if (!ISO_DATE.test(asOf) || Number.isNaN(dayNumber(asOf))) throw new Error(`demo asOf must be YYYY-MM-DD, got ${asOf}`);
  if (!(scale > 0)) throw new Error(`demo scale must be positive, got ${scale}`);

  const profiles = buildUniverse({ seed, size, scale });
  const byKey = new Map<string, CompanyProfile>();
  for (const profile of profiles) byKey.set(keyOf(profile.security), profile);
  const { trade, sectorExports } = generateTrade(seed, asOf);
  const fx = generateFx(seed, asOf);

  // A bar is a closed session (never a session still trading): the last one is each market's last session closed
  // by `now`, never later than the end of the Seoul day `asOf`.
  const endOfAsOf = new Date(`${asOf}T23:59:59.999+09:00`);
  const instant = options.now !== undefined && options.now < endOfAsOf ? options.now : endOfAsOf;
  const calendars = new Map<Market, MarketCalendar>();
  const calendarOf = (market: Market): MarketCalendar => {
    let calendar = calendars.get(market);
    if (calendar === undefined) {
      const dates = tradingDaysBetween(market, FIRST_BAR_DATE, lastClosedSession(market, instant, isTradingDay));
      calendar = { market, dates, days: dates.map(dayNumber), marketFactor: marketFactorPath(seed, market, dates.length) };
      calendars.set(market, calendar);
    }
    return calendar;
  };

  // One-entry caches: callers typically ask for a stock's bars, reports and flows in a row,
  // and flows need that stock's traded values. Results never depend on what is cached, and
  // nothing handed to a caller is kept, so a caller mutating its result changes nothing here.
  let modelCache: { key: string; model: CompanyModel } | null = null;
  let tradedValueCache: { key: string; tradedValue: Float64Array } | null = null;
  const profileFor = (security: Security): CompanyProfile => {
    const profile = byKey.get(keyOf(security));
    if (profile === undefined) throw new Error(`not a demo security: ${security.market}:${security.code}`);
    return profile;
  };
  const modelFor = (profile: CompanyProfile): CompanyModel => {
    const key = keyOf(profile.security);
    if (modelCache?.key !== key) modelCache = { key, model: buildCompanyModel(profile, seed, asOf) };
    return modelCache.model;
  };
  const barsOf = (profile: CompanyProfile): DailyBar[] => {
    const bars = barsFromModel(profile, modelFor(profile), calendarOf(profile.security.market), seed);
    tradedValueCache = { key: keyOf(profile.security), tradedValue: Float64Array.from(bars, (bar) => bar.tradedValue) };
    return bars;
  };
  const tradedValueOf = (profile: CompanyProfile): Float64Array => {
    const key = keyOf(profile.security);
    if (tradedValueCache?.key !== key) barsOf(profile);
    return (tradedValueCache as { tradedValue: Float64Array }).tradedValue;
  };

  return {
    securities: profiles.map((p) => ({ ...p.security })),
    fx,
    trade,
    sectorExports,
    tradingDays: (market) => [...calendarOf(market).dates],
    barsFor: (security) => barsOf(profileFor(security)),
    reportsFor: (security) => {
      const profile = profileFor(security);
      return reportsFromModel(profile, modelFor(profile), asOf);
    },
    flowsFor: (security) => {
      const profile = profileFor(security);
      if (profile.security.market !== 'KR') return [];
      return flowsFromTradedValue(profile, calendarOf('KR').dates, tradedValueOf(profile), seed);
    },
    profileOf: (security) => byKey.get(keyOf(security)),
  };
}

function keyOf(security: Pick<Security, 'market' | 'code'>): string {
  return `${security.market}:${security.code}`;
}
