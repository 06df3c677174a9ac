// Korean trade statistics for the demo: monthly exports and imports from 1990-01, whose
// annual totals stay close to the published Korea Customs figures, and exports split into
// sectors whose shares follow the economy's real history (textiles giving way to chips,
// batteries and displays appearing around 2000). Sector values sum exactly to the total.

import type { SectorExportMonth, TradeMonth } from '../../domain/model.js';
import { EXPORT_SECTORS, type NamedExportSector, OTHER_SECTOR } from '../shared/export-sectors.js';
import { Rng } from './random.js';

// The sector names come from the shared list that the Customs adapter also maps onto; the
// table below is keyed by it (the type makes a missing or misspelt sector a compile error).
// Its key order is the order the sector noise is drawn in, so it must not be re-sorted.
export { EXPORT_SECTORS, OTHER_SECTOR };

export const FIRST_TRADE_YEAR = 1990;

/** Annual exports and imports, billions of USD (Korea Customs Service, rounded). */
const ANNUAL_TRADE: Record<number, readonly [number, number]> = {
  1990: [65.0, 69.8], 1991: [71.9, 81.5], 1992: [76.6, 81.8], 1993: [82.2, 83.8], 1994: [96.0, 102.3],
  1995: [125.1, 135.1], 1996: [129.7, 150.3], 1997: [136.2, 144.6], 1998: [132.3, 93.3], 1999: [143.7, 119.8],
  2000: [172.3, 160.5], 2001: [150.4, 141.1], 2002: [162.5, 152.1], 2003: [193.8, 178.8], 2004: [253.8, 224.5],
  2005: [284.4, 261.2], 2006: [325.5, 309.4], 2007: [371.5, 356.8], 2008: [422.0, 435.3], 2009: [363.5, 323.1],
  2010: [466.4, 425.2], 2011: [555.2, 524.4], 2012: [547.9, 519.6], 2013: [559.6, 515.6], 2014: [572.7, 525.5],
  2015: [526.8, 436.5], 2016: [495.4, 406.2], 2017: [573.7, 478.5], 2018: [604.9, 535.2], 2019: [542.2, 503.3],
  2020: [512.5, 467.6], 2021: [644.4, 615.1], 2022: [683.6, 731.4], 2023: [632.2, 642.6], 2024: [683.7, 632.0],
  2025: [700.0, 640.0], 2026: [720.0, 650.0],
};
const LAST_TABLE_YEAR = 2026;

/** Monthly seasonality (share of the year): Lunar New Year dents Jan/Feb, December is strong. */
const EXPORT_SEASON = [0.076, 0.074, 0.086, 0.083, 0.084, 0.085, 0.083, 0.08, 0.084, 0.086, 0.085, 0.094];
const IMPORT_SEASON = [0.083, 0.076, 0.085, 0.084, 0.084, 0.082, 0.084, 0.083, 0.081, 0.084, 0.085, 0.089];

function annualTrade(year: number): readonly [number, number] {
  const known = ANNUAL_TRADE[year];
  if (known !== undefined) return known;
  // Beyond the table: 3% a year, the recent trend.
  const last = ANNUAL_TRADE[LAST_TABLE_YEAR] as readonly [number, number];
  const growth = Math.pow(1.03, year - LAST_TABLE_YEAR);
  return [last[0] * growth, last[1] * growth];
}

/** Share of total exports in percent, by year (linear in between, flat outside). */
const SECTOR_SHARES: Record<NamedExportSector, readonly (readonly [number, number])[]> = {
  Semiconductors: [[1990, 7], [1995, 14], [1998, 13], [2000, 15], [2002, 10.5], [2005, 10.5], [2008, 7.8], [2010, 10.9], [2013, 10.2], [2015, 11.9], [2017, 17.1], [2018, 20.9], [2019, 17.3], [2020, 19.4], [2021, 19.9], [2022, 18.9], [2023, 15.6], [2024, 20.8], [2025, 22.5], [2026, 24]],
  Automobiles: [[1990, 3], [1995, 6], [2000, 7.7], [2005, 10.1], [2008, 8.4], [2010, 7.6], [2012, 8.6], [2015, 8.5], [2018, 6.4], [2020, 7.3], [2022, 7.8], [2023, 11.1], [2024, 10.4], [2026, 10]],
  'Auto Parts': [[1990, 1], [2000, 1.5], [2005, 2.5], [2010, 4], [2013, 4.7], [2015, 5], [2020, 4.4], [2023, 3.6], [2026, 3.3]],
  Shipbuilding: [[1990, 4.5], [1995, 5.7], [2000, 4.9], [2005, 6.2], [2008, 10.3], [2011, 10.1], [2013, 6.5], [2015, 7.7], [2017, 7.3], [2019, 3.7], [2021, 3.5], [2023, 3.3], [2024, 3.7], [2026, 4.5]],
  'Secondary Batteries': [[1999, 0], [2000, 0.4], [2005, 0.8], [2010, 1], [2015, 0.7], [2020, 1.5], [2022, 1.5], [2024, 1.1], [2026, 1]],
  Displays: [[2001, 0], [2002, 0.5], [2005, 3], [2008, 5.5], [2010, 5.3], [2013, 4.6], [2015, 3.8], [2018, 4.1], [2020, 3.5], [2022, 3.1], [2024, 3], [2026, 2.6]],
  Petrochemicals: [[1990, 2.5], [1995, 3.5], [2000, 4.5], [2005, 5.3], [2010, 7.6], [2014, 8.4], [2016, 6.9], [2018, 8.3], [2020, 6.9], [2022, 7.8], [2024, 6.6], [2026, 6]],
  'Petroleum Products': [[1990, 1.5], [1995, 2], [2000, 5.2], [2005, 5.3], [2008, 9], [2012, 10.2], [2015, 6], [2016, 5.3], [2018, 7.7], [2020, 4.6], [2022, 9.2], [2024, 6.7], [2026, 6]],
  Steel: [[1990, 6], [1995, 5.5], [2000, 4.4], [2005, 5.3], [2008, 6.8], [2010, 5.7], [2015, 5.7], [2018, 5], [2020, 5.6], [2022, 5.4], [2024, 4.8], [2026, 4.4]],
  'Wireless Communication Devices': [[1990, 0.3], [1995, 0.8], [2000, 5.3], [2005, 9.7], [2008, 8.2], [2010, 5.8], [2012, 4.1], [2015, 6.1], [2018, 2.4], [2020, 2.6], [2024, 2.2], [2026, 2]],
  Computers: [[1990, 3.5], [1995, 4], [2000, 8.5], [2005, 3.3], [2010, 1.8], [2015, 1.8], [2018, 1.7], [2020, 2.6], [2022, 1.3], [2024, 1.9], [2026, 1.7]],
  'Home Appliances': [[1990, 4], [2000, 2.5], [2010, 1.5], [2020, 1.4], [2026, 1]],
  Textiles: [[1990, 10], [1995, 11], [2000, 6.8], [2005, 3.8], [2010, 2.7], [2015, 2.2], [2020, 1.7], [2026, 1.4]],
  Apparel: [[1990, 11.5], [1995, 4], [2000, 2.5], [2005, 0.7], [2010, 0.4], [2026, 0.3]],
  Footwear: [[1990, 6.3], [1995, 1.5], [2000, 0.4], [2010, 0.1], [2026, 0.1]],
  Machinery: [[1990, 2], [2000, 2.8], [2010, 4], [2015, 4.5], [2026, 4.5]],
  'Precision Instruments': [[1990, 0.8], [2010, 1.3], [2026, 1.5]],
  Plastics: [[1990, 1.5], [2010, 1.6], [2026, 1.4]],
  Tires: [[1990, 1], [2010, 1], [2026, 0.7]],
  Cosmetics: [[1990, 0.05], [2010, 0.1], [2013, 0.25], [2015, 0.55], [2017, 0.85], [2020, 1.45], [2021, 1.43], [2023, 1.3], [2024, 1.5], [2026, 1.6]],
  Pharmaceuticals: [[1990, 0.3], [2010, 0.4], [2015, 0.6], [2020, 1.6], [2021, 1.8], [2023, 1.3], [2026, 1.3]],
  'Medical Devices': [[1990, 0.1], [2010, 0.5], [2020, 1.2], [2026, 1]],
  'Processed Food': [[1990, 1.5], [2010, 0.9], [2026, 1.1]],
  'Agricultural Products': [[1990, 1.5], [2010, 0.6], [2026, 0.5]],
  'Fishery Products': [[1990, 2], [2000, 0.8], [2010, 0.4], [2026, 0.4]],
  'Nonferrous Metals': [[1990, 0.8], [2010, 1.5], [2026, 1.7]],
  Glass: [[1990, 0.5], [2026, 0.3]],
  Paper: [[1990, 1], [2026, 0.5]],
  Furniture: [[1990, 0.7], [2026, 0.1]],
  Toys: [[1990, 1.8], [2000, 0.2], [2026, 0.05]],
  'Optical Equipment': [[1990, 0.8], [2026, 1]],
  'Electrical Equipment': [[1990, 2], [2026, 2.2]],
  'Power Generation Equipment': [[1990, 0.3], [2026, 0.8]],
  'Railway Vehicles': [[1990, 0.05], [2026, 0.1]],
  'Aircraft and Parts': [[1990, 0.1], [2026, 0.4]],
  'Construction Machinery': [[1990, 0.3], [2026, 0.9]],
  'Agricultural Machinery': [[1990, 0.05], [2026, 0.2]],
  'Fine Chemicals': [[1990, 1], [2026, 2.5]],
  'Synthetic Resins': [[1990, 1.5], [2026, 3]],
  Fertilizers: [[1990, 0.3], [2026, 0.05]],
  'Rubber Products': [[1990, 0.8], [2026, 0.4]],
  Jewelry: [[1990, 1.5], [2026, 0.2]],
  'Musical Instruments': [[1990, 0.6], [2026, 0.05]],
  'Sporting Goods': [[1990, 1.5], [2026, 0.1]],
  'Printed Matter': [[1990, 0.2], [2026, 0.05]],
  Leather: [[1990, 2.5], [2026, 0.2]],
  Ceramics: [[1990, 0.4], [2026, 0.2]],
  'Solar Cells': [[2005, 0], [2006, 0.05], [2008, 0.3], [2011, 1.2], [2015, 0.5], [2026, 0.2]],
  Robots: [[1999, 0], [2000, 0.01], [2010, 0.05], [2026, 0.15]],
  'Game Consoles and Content': [[1990, 0.02], [2026, 0.2]],
  'Semiconductor Equipment': [[1994, 0], [1995, 0.1], [2010, 0.6], [2026, 1]],
  'Audio and Video Equipment': [[1990, 3], [2026, 0.3]],
  'Metal Products': [[1990, 1.5], [2026, 1.2]],
  'Electronic Components': [[1990, 2], [2026, 1.5]],
};
/**
 * The headline sectors, whose shares above follow the published item statistics; the minor
 * ones are scaled each month so that the named sectors cover NAMED_SHARE of all exports.
 */
const HEADLINE_SECTORS = new Set<string>([
  'Semiconductors', 'Automobiles', 'Auto Parts', 'Shipbuilding', 'Secondary Batteries', 'Displays', 'Petrochemicals',
  'Petroleum Products', 'Steel', 'Wireless Communication Devices', 'Computers', 'Home Appliances', 'Textiles', 'Apparel',
  'Footwear', 'Machinery', 'Cosmetics', 'Pharmaceuticals',
] satisfies readonly NamedExportSector[]);
const NAMED_SHARE = 0.9;
/** What the named sectors leave over (OTHER_SECTOR) is always at least this share of the month's exports. */
const MINIMUM_OTHER_SHARE = 0.03;
/** Orders for ships are delivered (and counted as exports) in lumps. */
const LUMPY_SECTORS = new Set<string>(['Shipbuilding', 'Aircraft and Parts', 'Railway Vehicles', 'Power Generation Equipment'] satisfies readonly NamedExportSector[]);

function sectorShare(knots: readonly (readonly [number, number])[], t: number): number {
  const first = knots[0];
  if (first === undefined) return 0;
  if (t <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [y1, v1] = knots[i] as readonly [number, number];
    if (t <= y1) {
      const [y0, v0] = knots[i - 1] as readonly [number, number];
      return v0 + ((v1 - v0) * (t - y0)) / (y1 - y0);
    }
  }
  return (knots[knots.length - 1] as readonly [number, number])[1];
}

const monthLabel = (year: number, month: number): string => `${year}-${String(month).padStart(2, '0')}`;

/** The last complete month before `asOf` (`YYYY-MM`). */
export function lastCompleteMonth(asOf: string): string {
  const year = Number(asOf.slice(0, 4));
  const month = Number(asOf.slice(5, 7));
  return month === 1 ? monthLabel(year - 1, 12) : monthLabel(year, month - 1);
}

export interface TradeSeries {
  trade: TradeMonth[];
  sectorExports: SectorExportMonth[];
}

/**
 * Whole calendar years are generated and normalised to their annual totals, then cut at the
 * last complete month, so a month's figure does not change as later months are published.
 */
export function generateTrade(seed: number, asOf: string): TradeSeries {
  const rng = new Rng(seed, 'trade:KR');
  const sectorRng = new Rng(seed, 'trade:KR:sectors');
  const last = lastCompleteMonth(asOf);
  const lastYear = Number(last.slice(0, 4));
  const trade: TradeMonth[] = [];
  const sectorExports: SectorExportMonth[] = [];
  const named = Object.entries(SECTOR_SHARES);
  const sectorNoise = new Float64Array(named.length);

  for (let year = FIRST_TRADE_YEAR; year <= lastYear; year++) {
    const [exportsBn, importsBn] = annualTrade(year);
    const [nextExportsBn, nextImportsBn] = annualTrade(year + 1);
    const [prevExportsBn, prevImportsBn] = year > FIRST_TRADE_YEAR ? annualTrade(year - 1) : [exportsBn, importsBn];
    const exportsByMonth = monthlySplit(rng, exportsBn * 1e9, prevExportsBn, exportsBn, nextExportsBn, EXPORT_SEASON);
    const importsByMonth = monthlySplit(rng, importsBn * 1e9, prevImportsBn, importsBn, nextImportsBn, IMPORT_SEASON);

    for (let m = 0; m < 12; m++) {
      const month = monthLabel(year, m + 1);
      const exports = exportsByMonth[m] ?? 0;
      const imports = importsByMonth[m] ?? 0;
      const include = month <= last;
      if (include) trade.push({ month, exports, imports, balance: exports - imports, source: 'demo' });

      // Sector split: share curve x autocorrelated noise, capped so that Other stays positive.
      // Knots are annual shares, so a year's months share its value (the noise varies them).
      const t = year;
      let headline = 0;
      let minor = 0;
      for (const [sector, knots] of named) {
        if (HEADLINE_SECTORS.has(sector)) headline += sectorShare(knots, t) / 100;
        else minor += sectorShare(knots, t) / 100;
      }
      const minorFactor = Math.max(0.2, Math.min(1, (NAMED_SHARE - headline) / minor));
      const raw: number[] = [];
      let rawTotal = 0;
      for (let s = 0; s < named.length; s++) {
        const [sector, knots] = named[s] as [string, readonly (readonly [number, number])[]];
        const z = sectorRng.normal();
        let noise: number;
        if (LUMPY_SECTORS.has(sector)) noise = 0.22 * z;
        else {
          noise = 0.6 * (sectorNoise[s] ?? 0) + 0.02 * z;
          sectorNoise[s] = noise;
        }
        const factor = HEADLINE_SECTORS.has(sector) ? 1 : minorFactor;
        const share = (sectorShare(knots, t) / 100) * factor * Math.exp(noise);
        raw.push(share);
        rawTotal += share;
      }
      const cap = rawTotal > 1 - MINIMUM_OTHER_SHARE ? (1 - MINIMUM_OTHER_SHARE) / rawTotal : 1;
      let assigned = 0;
      for (let s = 0; s < named.length; s++) {
        const value = Math.floor(exports * (raw[s] ?? 0) * cap);
        assigned += value;
        if (include) sectorExports.push({ month, sector: (named[s] as [string, unknown])[0], exports: value, source: 'demo' });
      }
      if (include) sectorExports.push({ month, sector: OTHER_SECTOR, exports: exports - assigned, source: 'demo' });
    }
  }
  return { trade, sectorExports };
}

/**
 * Twelve whole-dollar months summing to the year's total (give or take 1.5%): seasonality,
 * a within-year tilt toward the neighbouring years' levels so December and January join up,
 * and noise.
 */
function monthlySplit(rng: Rng, total: number, prev: number, current: number, next: number, season: readonly number[]): number[] {
  const tiltIn = Math.log(current / prev);
  const tiltOut = Math.log(next / current);
  const weights: number[] = [];
  for (let m = 0; m < 12; m++) {
    const position = (m + 0.5) / 12 - 0.5; // -0.46 .. +0.46 across the year
    const tilt = position < 0 ? tiltIn * position : tiltOut * position;
    weights.push((season[m] ?? 1 / 12) * Math.exp(tilt + 0.03 * rng.normal()));
  }
  const target = total * (1 + Math.max(-0.015, Math.min(0.015, 0.007 * rng.normal())));
  const sum = weights.reduce((a, b) => a + b, 0);
  const months = weights.map((w) => Math.round((w / sum) * target));
  const drift = Math.round(target) - months.reduce((a, b) => a + b, 0);
  months[11] = (months[11] ?? 0) + drift;
  return months;
}
