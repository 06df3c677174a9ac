// The last price bar of a market is its last closed regular session in its own time zone
// (no bar of a session still trading): a Seoul date alone cannot say that, because New York's session of a date
// closes at 05:00 or 06:00 the next Seoul day, and Seoul's own at 15:30. So the rule takes
// an instant and reads the market's local date and time with Intl, which knows each zone's
// offsets and daylight-saving changes (America/New_York: UTC-5, UTC-4 from the second Sunday
// of March to the first Sunday of November; Asia/Seoul: UTC+9 all year).

import { addDays } from './calendar.js';
import type { Market } from './model.js';

/** Regular-session close of each market, local time. */
export const MARKET_CLOSE: Readonly<Record<Market, { timeZone: string; hour: number; minute: number }>> = {
  // KRX regular session 09:00-15:30 (closing auction 15:20-15:30).
  KR: { timeZone: 'Asia/Seoul', hour: 15, minute: 30 },
  // NYSE and Nasdaq regular session 09:30-16:00.
  US: { timeZone: 'America/New_York', hour: 16, minute: 0 },
};

/** Whether `market`'s exchange holds a session on `date` (weekends and holidays are false). */
export type TradingDayTest = (market: Market, date: string) => boolean;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The local calendar date (`YYYY-MM-DD`) and minute of the day (0..1439) of `at` in `timeZone`. */
export function zonedDateTime(at: Date, timeZone: string): { date: string; minuteOfDay: number } {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of format.formatToParts(at)) part[p.type] = p.value;
  const date = `${part.year ?? ''}-${part.month ?? ''}-${part.day ?? ''}`;
  return { date, minuteOfDay: Number(part.hour) * 60 + Number(part.minute) };
}

/**
 * The date of the last regular session of `market` that has closed by the instant `at`: the
 * local date itself when it is a trading day and the close has passed (15:30 Seoul, 16:00 New
 * York, inclusive), else the latest earlier trading day. Early closes (NYSE half days) are
 * treated as full days, so such a session counts as closed from 16:00: late, never early.
 */
export function lastClosedSession(market: Market, at: Date, isTradingDay: TradingDayTest): string {
  const close = MARKET_CLOSE[market];
  const local = zonedDateTime(at, close.timeZone);
  let date = local.minuteOfDay >= close.hour * 60 + close.minute ? local.date : addDays(local.date, -1);
  // Bounded: no exchange is closed for a month on end.
  for (let i = 0; i < 31 && !isTradingDay(market, date); i++) date = addDays(date, -1);
  return date;
}
