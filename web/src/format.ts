// Numbers as people read them: in Korean, won in 억 (1e8) and 조 (1e12); in English, won in
// the units English readers use (KRW 6.64 tn, KRW 728.9 bn, KRW 12.3 m); dollars in M, B
// and T; prices in the stock's currency; percentages with a sign.

import { currentLang } from './i18n.js';
import type { Currency } from './types.js';

const DASH = '—';

/** The value as written with `digits` decimals (-0.04 at one decimal is 0, not -0). */
function roundedTo(value: number, digits: number): number {
  const r = Number(value.toFixed(digits));
  return r === 0 ? 0 : r;
}

/** Grouped with `digits` decimals; a value that rounds to zero has no sign (0.0, never -0.0). */
function grouped(value: number, digits: number): string {
  return (roundedTo(value, digits) === 0 ? 0 : value).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Digits that keep about three significant figures for a value already scaled to its unit. */
function digitsFor(scaled: number): number {
  const abs = Math.abs(scaled);
  return abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
}

/** An amount of money: 12.3조 / 4,560억 / 12,345원, or $18.3B / $3.6M / $12,345. */
export function money(value: number | null | undefined, currency: Currency): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  const abs = Math.abs(value);
  if (currency === 'KRW') {
    if (currentLang() === 'en') {
      if (abs >= 1e12) return `KRW ${grouped(value / 1e12, 2)} tn`;
      if (abs >= 1e9) return `KRW ${grouped(value / 1e9, 1)} bn`;
      if (abs >= 1e6) return `KRW ${grouped(value / 1e6, 1)} m`;
      return `KRW ${grouped(Math.round(value), 0)}`;
    }
    if (abs >= 1e12) return `${grouped(value / 1e12, digitsFor(value / 1e12))}조`;
    if (abs >= 1e8) return `${grouped(Math.round(value / 1e8), 0)}억`;
    return `${grouped(Math.round(value), 0)}원`;
  }
  const sign = value < 0 && Math.round(abs) > 0 ? '-' : '';
  if (abs >= 1e12) return `${sign}$${grouped(abs / 1e12, 2)}T`;
  if (abs >= 1e9) return `${sign}$${grouped(abs / 1e9, digitsFor(abs / 1e9))}B`;
  if (abs >= 1e6) return `${sign}$${grouped(abs / 1e6, digitsFor(abs / 1e6))}M`;
  return `${sign}$${grouped(Math.round(abs), 0)}`;
}

/** TTM net income published in 억 won (100 million won). */
export function eok(value: number | null | undefined): string {
  return value === null || value === undefined ? DASH : money(value * 1e8, 'KRW');
}

/** A share price: 33,542원 (KRW 33,542 in English) or $182.80. */
export function price(value: number | null | undefined, currency: Currency): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  if (currency === 'KRW') return currentLang() === 'ko' ? `${grouped(value, 0)}원` : `KRW ${grouped(value, 0)}`;
  return `${roundedTo(value, 2) < 0 ? '-' : ''}$${grouped(Math.abs(value), 2)}`;
}

/** A percentage with its sign: +13.3%. */
export function pct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return `${roundedTo(value, digits) > 0 ? '+' : ''}${grouped(value, digits)}%`;
}

export function num(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return grouped(value, digits);
}

/** A volume (shares): 1.4M, or 1,435,603 below a million. */
export function volume(value: number): string {
  if (value >= 1e9) return `${grouped(value / 1e9, 2)}B`;
  if (value >= 1e6) return `${grouped(value / 1e6, 2)}M`;
  return grouped(value, 0);
}

/** A snapshot or percentile value in its unit: x (multiple), %, days, KRW or USD. */
export function inUnit(value: number | null, unit: string): string {
  if (value === null) return DASH;
  switch (unit) {
    case 'x':
      return `${grouped(value, 2)}x`;
    case '%':
      return `${grouped(value, 1)}%`;
    case 'days':
      return `${grouped(value, 0)}${currentLang() === 'ko' ? '일' : ' days'}`;
    case 'KRW':
    case 'USD':
      return money(value, unit);
    default:
      return `${grouped(value, 2)} ${unit}`;
  }
}

/** updatedAt (ISO 8601 with offset) as 2026-11-20 12:00 (+09:00). */
export function timestamp(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  return m ? `${m[1]} ${m[2]} (${m[3] === 'Z' ? 'UTC' : m[3]})` : iso;
}

/**
 * A stock's name in the page's language: in Korean the listed name; in English the English
 * name where there is one. `other` is the name not shown (for a tooltip or a second line).
 */
export function stockName(stock: { name: string; nameEn?: string | null }): { shown: string; other: string | null } {
  const en = stock.nameEn ?? null;
  if (currentLang() === 'en' && en !== null && en !== stock.name) return { shown: en, other: stock.name };
  return { shown: stock.name, other: en !== null && en !== stock.name ? en : null };
}
