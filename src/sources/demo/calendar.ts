// Trading calendars for KRX and NYSE and the date arithmetic the generator needs. Dates are
// handled as day numbers (days since 1970-01-01, UTC) so that no time zone or clock is
// involved. Holidays follow the exchanges' published rules closely enough for a demo: the
// fixed holidays, the lunar holidays from a table (2014-2026), substitute days, and the
// one-off closures (elections, national mourning) that moved real volumes.

import type { Market } from '../../domain/model.js';

const MS_PER_DAY = 86_400_000;

export function dayNumber(iso: string): number {
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  const d = Number(iso.slice(8, 10));
  return Date.UTC(y, m - 1, d) / MS_PER_DAY;
}

export function isoDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

export function ymd(year: number, month: number, day: number): string {
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** 0 = Sunday .. 6 = Saturday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function isWeekend(day: number): boolean {
  const w = weekday(day);
  return w === 0 || w === 6;
}

export function addDays(iso: string, days: number): string {
  return isoDate(dayNumber(iso) + days);
}

export function lastDayOfMonth(year: number, month: number): string {
  return isoDate(Date.UTC(year, month, 0) / MS_PER_DAY);
}

/** The n-th (1-based) given weekday of a month; n = -1 for the last one. */
function nthWeekday(year: number, month: number, dow: number, n: number): number {
  if (n > 0) {
    const first = dayNumber(ymd(year, month, 1));
    const offset = (dow - weekday(first) + 7) % 7;
    return first + offset + (n - 1) * 7;
  }
  const last = dayNumber(lastDayOfMonth(year, month));
  return last - ((weekday(last) - dow + 7) % 7);
}

/** Gregorian Easter Sunday (anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayNumber(ymd(year, month, day));
}

/** NYSE rule: a holiday on Saturday closes Friday, on Sunday closes Monday. */
function observedUs(day: number): number {
  const w = weekday(day);
  if (w === 6) return day - 1;
  if (w === 0) return day + 1;
  return day;
}

function usHolidays(year: number): Set<number> {
  const days = new Set<number>();
  // New Year's Day on a Saturday is not observed on Dec 31 (NYSE Rule 7.2).
  const newYear = dayNumber(ymd(year, 1, 1));
  if (weekday(newYear) === 0) days.add(newYear + 1);
  else if (weekday(newYear) !== 6) days.add(newYear);
  days.add(nthWeekday(year, 1, 1, 3)); // Martin Luther King Jr. Day
  days.add(nthWeekday(year, 2, 1, 3)); // Washington's Birthday
  days.add(easterSunday(year) - 2); // Good Friday
  days.add(nthWeekday(year, 5, 1, -1)); // Memorial Day
  if (year >= 2022) days.add(observedUs(dayNumber(ymd(year, 6, 19)))); // Juneteenth
  days.add(observedUs(dayNumber(ymd(year, 7, 4))));
  days.add(nthWeekday(year, 9, 1, 1)); // Labor Day
  days.add(nthWeekday(year, 11, 4, 4)); // Thanksgiving
  days.add(observedUs(dayNumber(ymd(year, 12, 25))));
  for (const special of US_SPECIAL_CLOSURES) if (special.startsWith(String(year))) days.add(dayNumber(special));
  return days;
}

/** National days of mourning (G. H. W. Bush, J. Carter) closed the NYSE. */
const US_SPECIAL_CLOSURES = ['2018-12-05', '2025-01-09'];

/** Lunar new year's day (Seollal) by year; the holiday is the day before, the day and the day after. */
const SEOLLAL: Record<number, string> = {
  2014: '2014-01-31', 2015: '2015-02-19', 2016: '2016-02-08', 2017: '2017-01-28', 2018: '2018-02-16',
  2019: '2019-02-05', 2020: '2020-01-25', 2021: '2021-02-12', 2022: '2022-02-01', 2023: '2023-01-22',
  2024: '2024-02-10', 2025: '2025-01-29', 2026: '2026-02-17',
};

/** Chuseok (15th day of the 8th lunar month); again a three-day holiday. */
const CHUSEOK: Record<number, string> = {
  2014: '2014-09-08', 2015: '2015-09-27', 2016: '2016-09-15', 2017: '2017-10-04', 2018: '2018-09-24',
  2019: '2019-09-13', 2020: '2020-10-01', 2021: '2021-09-21', 2022: '2022-09-10', 2023: '2023-09-29',
  2024: '2024-09-17', 2025: '2025-10-06', 2026: '2026-09-25',
};

/** Buddha's birthday (8th day of the 4th lunar month). */
const BUDDHA: Record<number, string> = {
  2014: '2014-05-06', 2015: '2015-05-25', 2016: '2016-05-14', 2017: '2017-05-03', 2018: '2018-05-22',
  2019: '2019-05-12', 2020: '2020-04-30', 2021: '2021-05-19', 2022: '2022-05-08', 2023: '2023-05-27',
  2024: '2024-05-15', 2025: '2025-05-05', 2026: '2026-05-24',
};

/** Election days and one-off temporary public holidays on which the KRX was closed. */
const KR_SPECIAL_CLOSURES = [
  '2014-06-04', '2015-08-14', '2016-04-13', '2016-05-06', '2017-05-09', '2017-10-02', '2018-06-13',
  '2020-04-15', '2020-08-17', '2022-03-09', '2022-06-01', '2023-10-02', '2024-04-10', '2024-10-01',
  '2025-01-27', '2025-06-03', '2026-06-03',
];

function krHolidays(year: number): Set<number> {
  const days = new Set<number>();
  const add = (iso: string): number => {
    const d = dayNumber(iso);
    days.add(d);
    return d;
  };
  // Next weekday that is not already a holiday: where a substitute holiday lands.
  const substituteAfter = (day: number): number => {
    let d = day + 1;
    while (isWeekend(d) || days.has(d)) d++;
    return d;
  };

  // Fixed-date holidays first, so that a lunar holiday overlapping one of them is seen.
  add(ymd(year, 1, 1));
  const nationalDays = [[3, 1], [8, 15], [10, 3], [10, 9]] as const;
  for (const [month, day] of nationalDays) add(ymd(year, month, day));
  add(ymd(year, 5, 1)); // Workers' Day: the KRX closes although it is not a public holiday
  const childrens = add(ymd(year, 5, 5));
  const christmas = add(ymd(year, 12, 25));

  // Substitute holidays exist since 2014 for the lunar holidays and Children's Day, since
  // August 2021 for the national days, and since May 2023 for Buddha's birthday and Christmas.
  for (const table of [SEOLLAL, CHUSEOK]) {
    const center = table[year];
    if (center === undefined) continue;
    const c = dayNumber(center);
    const block = [c - 1, c, c + 1];
    // A Sunday or another holiday inside the block earns a substitute; a Saturday does not.
    const needsSubstitute = block.some((d) => weekday(d) === 0 || days.has(d));
    for (const d of block) days.add(d);
    if (needsSubstitute) days.add(substituteAfter(c + 1));
  }
  const buddha = BUDDHA[year];
  const buddhaDay = buddha === undefined ? null : dayNumber(buddha);
  if (isWeekend(childrens) || childrens === buddhaDay) days.add(substituteAfter(childrens));
  if (buddhaDay !== null) {
    const overlaps = days.has(buddhaDay);
    days.add(buddhaDay);
    if (year >= 2023 && (isWeekend(buddhaDay) || overlaps) && buddhaDay !== childrens) days.add(substituteAfter(buddhaDay));
  }
  for (const [month, day] of nationalDays) {
    const d = dayNumber(ymd(year, month, day));
    const since2021 = year > 2021 || (year === 2021 && month >= 8);
    if (since2021 && isWeekend(d)) days.add(substituteAfter(d));
  }
  add(ymd(year, 6, 6)); // Memorial Day: no substitute holiday
  if (year >= 2023 && isWeekend(christmas)) days.add(substituteAfter(christmas));
  // KRX year-end closing day: Dec 31, or the last weekday before it when it falls on a weekend.
  let yearEnd = dayNumber(ymd(year, 12, 31));
  while (isWeekend(yearEnd)) yearEnd--;
  days.add(yearEnd);
  for (const special of KR_SPECIAL_CLOSURES) if (special.startsWith(String(year))) add(special);
  return days;
}

const holidayCache = new Map<string, Set<number>>();

function holidaysOf(market: Market, year: number): Set<number> {
  const key = `${market}${year}`;
  let set = holidayCache.get(key);
  if (set === undefined) {
    set = market === 'KR' ? krHolidays(year) : usHolidays(year);
    holidayCache.set(key, set);
  }
  return set;
}

export function isTradingDayNumber(market: Market, day: number): boolean {
  if (isWeekend(day)) return false;
  const year = new Date(day * MS_PER_DAY).getUTCFullYear();
  return !holidaysOf(market, year).has(day);
}

/** Whether the exchange of `market` is open on `date` (`YYYY-MM-DD`). */
export function isTradingDay(market: Market, date: string): boolean {
  return isTradingDayNumber(market, dayNumber(date));
}

/** Trading days of `market` from `from` to `to` inclusive, ascending. */
export function tradingDaysBetween(market: Market, from: string, to: string): string[] {
  const out: string[] = [];
  const end = dayNumber(to);
  for (let d = dayNumber(from); d <= end; d++) if (isTradingDayNumber(market, d)) out.push(isoDate(d));
  return out;
}

/** Every Monday-to-Friday date from `from` to `to` inclusive (the FX fixing calendar). */
export function weekdaysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = dayNumber(to);
  for (let d = dayNumber(from); d <= end; d++) if (!isWeekend(d)) out.push(isoDate(d));
  return out;
}
