// Date and month arithmetic on ISO strings (`YYYY-MM-DD`, `YYYY-MM`), done with integers so
// that no formula depends on the host's time zone or clock. Day numbers count days since
// 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil algorithm).

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_RE = /^(\d{4})-(\d{2})$/;

const pad2 = (n: number): string => String(n).padStart(2, '0');
const pad4 = (n: number): string => String(n).padStart(4, '0');

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True for a real calendar date written `YYYY-MM-DD` (rejects 2023-02-29, 2024-13-01). */
export function isValidDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/** True for a month written `YYYY-MM` with MM in 01..12. */
export function isValidMonth(s: string): boolean {
  const m = MONTH_RE.exec(s);
  if (!m) return false;
  const mo = Number(m[2]);
  return mo >= 1 && mo <= 12;
}

function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Year, month and day of a day number (days since 1970-01-01). */
export function civilFromDays(z: number): { y: number; m: number; d: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** Days since 1970-01-01 (negative before). The input must be a valid `YYYY-MM-DD`. */
export function dayNumber(date: string): number {
  return daysFromCivil(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)));
}

export function dateOfDayNumber(n: number): string {
  const { y, m, d } = civilFromDays(n);
  return `${pad4(y)}-${pad2(m)}-${pad2(d)}`;
}

/** Calendar days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days);
}

/** ISO weekday: 1 = Monday ... 7 = Sunday. 1970-01-01 was a Thursday (4). */
export function isoWeekday(date: string): number {
  return (((dayNumber(date) + 3) % 7) + 7) % 7 + 1;
}

/**
 * ISO 8601 week: the week belongs to the year that contains its Thursday, and week 1 is the
 * week with that year's first Thursday. `2024-12-30` is in `2025-W01`; `2021-01-03` in `2020-W53`.
 */
export function isoWeek(date: string): { year: number; week: number; key: string } {
  const thursday = dayNumber(date) + 4 - isoWeekday(date);
  const year = civilFromDays(thursday).y;
  const week = Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1;
  return { year, week, key: `${pad4(year)}-W${pad2(week)}` };
}

/** `YYYY-MM` of a `YYYY-MM-DD`. */
export function monthOf(date: string): string {
  return date.slice(0, 7);
}

/** Months since year 0 (`YYYY-MM` -> Y x 12 + M - 1), for month arithmetic and comparison. */
export function monthIndex(month: string): number {
  return Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
}

export function monthOfIndex(index: number): string {
  const y = Math.floor(index / 12);
  return `${pad4(y)}-${pad2(index - y * 12 + 1)}`;
}

/** `addMonths('2024-11', 3)` = `2025-02`; negative counts go back. */
export function addMonths(month: string, months: number): string {
  return monthOfIndex(monthIndex(month) + months);
}

/** Number of months from `from` to `to` (`monthsBetween('2024-01', '2024-03')` = 2). */
export function monthsBetween(from: string, to: string): number {
  return monthIndex(to) - monthIndex(from);
}

/** Every month from `from` to `to` inclusive, ascending; empty when `from` > `to`. */
export function monthRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let i = monthIndex(from); i <= monthIndex(to); i++) out.push(monthOfIndex(i));
  return out;
}

/** Calendar year of a `YYYY-MM-DD` or `YYYY-MM`. */
export function yearOf(dateOrMonth: string): number {
  return Number(dateOrMonth.slice(0, 4));
}
