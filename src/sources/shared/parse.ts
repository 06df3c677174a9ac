// Small parsing helpers shared by the adapters: upstream numbers arrive as strings
// ("1,395.5", "-", "", ".11") and dates as YYYYMMDD. XML is read in ./xml.ts.

/** Narrow `unknown` to a plain object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A JSON text that holds an object (a cursor, an envelope), as that object; null when the text
 * is not JSON or holds anything else (an array, a string, a number, null).
 */
export function jsonObject(raw: string): Record<string, unknown> | null {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return null;
  }
  return isRecord(body) ? body : null;
}

/** A string field, or '' when absent; numbers are stringified (some envelopes mix them). */
export function str(obj: Record<string, unknown>, key: string): string {
  const v = obj[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return '';
}

/**
 * Parses an upstream amount: thousands separators, surrounding spaces, a leading '+',
 * accounting parentheses for negatives. '', '-' and anything non-numeric mean "not reported"
 * and give null (never 0; the model keeps missing items null).
 */
export function parseAmount(raw: string | number | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  let s = raw.trim().replace(/,/g, '');
  if (s === '' || s === '-' || s === '--' || s === 'N/A') return null;
  let sign = 1;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren?.[1] !== undefined) {
    sign = -1;
    s = paren[1];
  }
  if (s.startsWith('+')) s = s.slice(1);
  // ".11" and "-.75" (FSC fltRt) are valid; require at least one digit.
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(s)) return null;
  const n = Number(s) * sign;
  return Number.isFinite(n) ? n : null;
}

/** `20241120` or `2024.11.20` or `2024/11/20` -> `2024-11-20`; null when not a date. */
export function toIsoDate(raw: string): string | null {
  const m = /^(\d{4})[-./]?(\d{2})[-./]?(\d{2})$/.exec(raw.trim());
  if (!m) return null;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso;
}

export const compactDate = (iso: string): string => iso.replace(/-/g, '');

export function addDays(iso: string, days: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function daysBetween(fromIso: string, toIso: string): number {
  return Math.round((Date.parse(`${toIso}T00:00:00Z`) - Date.parse(`${fromIso}T00:00:00Z`)) / 86_400_000);
}

export function isWeekend(iso: string): boolean {
  const day = new Date(`${iso}T00:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

/** Dates from `from` to `to` inclusive, skipping Saturdays and Sundays. */
export function weekdaysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (!isWeekend(d)) out.push(d);
  return out;
}

export function lastDayOfMonth(year: number, month: number): string {
  const d = new Date(Date.UTC(year, month, 0));
  return d.toISOString().slice(0, 10);
}

/** `YYYY-MM` arithmetic. */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number);
  const t = (y ?? 0) * 12 + ((m ?? 1) - 1) + n;
  return `${Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, '0')}`;
}

export function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let m = from; m <= to; m = addMonths(m, 1)) out.push(m);
  return out;
}
