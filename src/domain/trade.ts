// Korean trade totals and sector exports: the default window is the latest 60 months, the
// earliest data 1990-01, and sectors rank by 24-month cumulative exports (docs/calculations.md).

import { addMonths, isValidMonth, monthIndex, monthRange } from './calendar.js';
import { changePct } from './change.js';
import type { SectorExportMonth, TradeMonth } from './model.js';
import type { SectorSeries, TradeTotalRow } from './results.js';

/** First month of Korean customs trade data served; an earlier month is out of range. */
export const EARLIEST_TRADE_MONTH = '1990-01';
/** Months in the default window: the latest 60. */
export const DEFAULT_TRADE_MONTHS = 60;
/** Months summed to rank sectors. */
export const SECTOR_RANKING_MONTHS = 24;

export type MonthWindow =
  | { from: string; to: string; error?: undefined }
  | { from?: undefined; to?: undefined; error: { kind: 'invalid_parameter'; parameter: 'from' | 'to'; message: string } | { kind: 'data_unavailable'; message: string } };

/**
 * Resolves and validates a month window. Both given: as given. Neither: the latest 60 months
 * ending at `latestMonth`. Only `from`: up to `latestMonth`. Only `to`: the 60 months ending
 * at `to`. A default start is never before 1990-01. Errors (never clamped silently: the
 * message names the allowed range): a malformed month, a month before 1990-01, `from` after `to`, and a default
 * needed while no data exists (`latestMonth` null).
 */
export function resolveMonthWindow(request: { from?: string; to?: string }, latestMonth: string | null, defaultMonths = DEFAULT_TRADE_MONTHS): MonthWindow {
  for (const parameter of ['from', 'to'] as const) {
    const m = request[parameter];
    if (m === undefined) continue;
    if (!isValidMonth(m)) return { error: { kind: 'invalid_parameter', parameter, message: `${parameter} must be a month written YYYY-MM, got '${m}'` } };
    if (m < EARLIEST_TRADE_MONTH)
      return { error: { kind: 'invalid_parameter', parameter, message: `${parameter} must be ${EARLIEST_TRADE_MONTH} or later: trade data start in ${EARLIEST_TRADE_MONTH}` } };
  }
  const earliest = (m: string): string => (m < EARLIEST_TRADE_MONTH ? EARLIEST_TRADE_MONTH : m);
  let { from, to } = request;
  if (to === undefined) {
    if (latestMonth === null) return { error: { kind: 'data_unavailable', message: 'no trade data has been loaded' } };
    if (from !== undefined && from > latestMonth)
      return { error: { kind: 'invalid_parameter', parameter: 'from', message: `from (${from}) is after the latest month with data (${latestMonth})` } };
    to = latestMonth;
  }
  if (from === undefined) from = earliest(addMonths(to, -(defaultMonths - 1)));
  if (from > to) return { error: { kind: 'invalid_parameter', parameter: 'from', message: `from (${from}) must not be after to (${to})` } };
  return { from, to };
}

/** The latest month in a series, or null when it is empty. */
export function latestMonthOf(rows: readonly { month: string }[]): string | null {
  let latest: string | null = null;
  for (const r of rows) if (latest === null || r.month > latest) latest = r.month;
  return latest;
}

/**
 * Trade totals for the months in [from, to] that have data, ascending, each with exports and
 * imports YoY in percent against the same month a year earlier (null where that month is
 * missing or zero).
 */
export function tradeTotals(months: readonly TradeMonth[], from: string, to: string): TradeTotalRow[] {
  const byMonth = new Map<string, TradeMonth>();
  for (const m of months) byMonth.set(m.month, m);
  const out: TradeTotalRow[] = [];
  for (const month of monthRange(from, to)) {
    const m = byMonth.get(month);
    if (!m) continue;
    const prior = byMonth.get(addMonths(month, -12));
    out.push({
      month,
      exports: m.exports,
      imports: m.imports,
      balance: m.balance,
      exportsYoyPct: changePct(m.exports, prior?.exports),
      importsYoyPct: changePct(m.imports, prior?.imports),
    });
  }
  return out;
}

/**
 * The top `top` sectors by exports summed over the 24 months ending at `to` (ties by sector
 * name), each with its monthly series over [from, to] and YoY per month (null where the same
 * month a year earlier is missing or zero). A sector with no data in those 24 months is not
 * ranked.
 */
export function sectorExports(rows: readonly SectorExportMonth[], from: string, to: string, top: number): SectorSeries[] {
  const rankFrom = monthIndex(addMonths(to, -(SECTOR_RANKING_MONTHS - 1)));
  const rankTo = monthIndex(to);
  const bySector = new Map<string, Map<string, number>>();
  const cumulative = new Map<string, number>();
  for (const r of rows) {
    let months = bySector.get(r.sector);
    if (!months) bySector.set(r.sector, (months = new Map()));
    months.set(r.month, r.exports);
  }
  for (const [sector, months] of bySector) {
    for (const [month, exports] of months) {
      const i = monthIndex(month);
      if (i >= rankFrom && i <= rankTo) cumulative.set(sector, (cumulative.get(sector) ?? 0) + exports);
    }
  }
  const ranked = [...cumulative.entries()]
    .sort(([sa, a], [sb, b]) => b - a || (sa < sb ? -1 : sa > sb ? 1 : 0))
    .slice(0, Math.max(0, top));
  const window = monthRange(from, to);
  return ranked.map(([sector, cumulative24m], i) => {
    const months = bySector.get(sector) as Map<string, number>;
    const series: SectorSeries['series'] = [];
    for (const month of window) {
      const exports = months.get(month);
      if (exports === undefined) continue;
      series.push({ month, exports, yoyPct: changePct(exports, months.get(addMonths(month, -12))) });
    }
    return { rank: i + 1, sector, cumulative24m, series };
  });
}
