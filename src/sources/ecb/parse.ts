// Parser for the ECB's euro foreign exchange reference rates, the bulk file
// `eurofxref-hist.csv` (the one member of https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip):
// a header `Date,USD,JPY,BGN,CYP,...,ZAR,` (every line ends with a comma), then one row per
// TARGET business day, newest first, `2024-10-11,1.0938,162.94,1.9558,N/A,...`: units of each
// currency per 1 EUR, `N/A` for a currency not published that day (the ones that joined the euro
// or were suspended). A real excerpt is test/fixtures/real/ecb.

import type { EuroReferenceRate } from '../../domain/model.js';
import { parseAmount, toIsoDate } from '../shared/parse.js';

export const SOURCE_NAME = 'ecb';

/** The member of the ZIP the rates are in. */
export const HIST_MEMBER = 'eurofxref-hist.csv';

export interface ReferenceRatesFile {
  rates: EuroReferenceRate[];
  /** The newest day in the file (whether or not it is kept by `from`); null when it has no row. */
  latest: string | null;
  /** Rows whose date or a figure could not be read, counted (a cell `N/A` is not one). */
  unreadable: number;
}

/**
 * The rates of `eurofxref-hist.csv` on days on or after `from` (every day when null); null when
 * the text does not start with the file's header (`Date,` then three-letter codes).
 */
export function parseReferenceRates(text: string, from: string | null = null): ReferenceRatesFile | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((c) => c.trim());
  if (header[0] !== 'Date') return null;
  const currencies = header.slice(1);
  // The trailing comma leaves an empty last column; any other column must be a currency code.
  while (currencies.at(-1) === '') currencies.pop();
  if (currencies.length === 0 || currencies.some((c) => !/^[A-Z]{3}$/.test(c))) return null;
  const rates: EuroReferenceRate[] = [];
  let latest: string | null = null;
  let unreadable = 0;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const cells = line.split(',');
    const date = toIsoDate(cells[0] ?? '');
    if (date === null) {
      unreadable++;
      continue;
    }
    if (latest === null || date > latest) latest = date;
    if (from !== null && date < from) continue;
    let bad = false;
    currencies.forEach((currency, i) => {
      const cell = (cells[i + 1] ?? '').trim();
      if (cell === 'N/A' || cell === '') return;
      const perEur = parseAmount(cell);
      if (perEur === null || perEur <= 0) {
        bad = true;
        return;
      }
      rates.push({ date, currency, perEur, source: SOURCE_NAME });
    });
    if (bad) unreadable++;
  }
  return { rates, latest, unreadable };
}
