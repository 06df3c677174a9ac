// The list of demo companies: invented names and codes in each market's real format, a
// sector, an exchange, a fiscal year, and the traits the generators need (market-cap band
// and target, business archetype). Drawn once per universe from the seed; everything that
// is generated later per stock is seeded from (seed, market, code) instead.

import type { Market, Security } from '../../domain/model.js';
import { currencyOf } from '../../domain/model.js';
import type { BandKey } from '../../domain/results.js';
import { Rng } from './random.js';
import type { MarketSector, SectorEconomics } from './sectors.js';
import { FINANCIAL_SECTORS, MARKET_SECTORS, SECTOR_ECONOMICS } from './sectors.js';

export type Archetype =
  | 'steady'
  | 'growth'
  | 'cyclical'
  | 'lossMaker'
  | 'turnaround'
  | 'biotech'
  | 'negativeEquity'
  | 'debtFree';

export interface CompanyProfile {
  security: Security;
  band: BandKey;
  /** Market cap the price path is pinned to on the as-of date. */
  targetMarketCap: number;
  /** Share price level at the reference date; fixes the share count. */
  targetPrice: number;
  archetype: Archetype;
  economics: SectorEconomics;
  /** False for the few KR companies that file separate statements only. */
  consolidated: boolean;
}

export type DemoSize = 'default' | 'full';

/** Companies per band for scale 1. Full size keeps the default mix, scaled proportionally. */
const BAND_COUNTS: Record<DemoSize, Record<Market, Record<BandKey, number>>> = {
  default: {
    KR: { mega: 6, xlarge: 15, large: 45, mid: 80, small: 254 },
    US: { mega: 10, xlarge: 30, large: 90, mid: 100, small: 170 },
  },
  full: {
    KR: { mega: 41, xlarge: 101, large: 304, mid: 540, small: 1714 },
    US: { mega: 150, xlarge: 450, large: 1350, mid: 1500, small: 2550 },
  },
};

/** Band limits in the market's currency (the spec's market-cap band table). */
const BAND_RANGES: Record<Market, Record<BandKey, readonly [number, number]>> = {
  KR: { mega: [20e12, 400e12], xlarge: [5e12, 20e12], large: [1e12, 5e12], mid: [3e11, 1e12], small: [5e9, 3e11] },
  US: { mega: [200e9, 3.5e12], xlarge: [50e9, 200e9], large: [10e9, 50e9], mid: [3e9, 10e9], small: [4e7, 3e9] },
};

/** Typical share price ranges by band: large caps trade at higher nominal prices. */
const PRICE_RANGES: Record<Market, Record<BandKey, readonly [number, number]>> = {
  KR: { mega: [50_000, 900_000], xlarge: [30_000, 600_000], large: [10_000, 300_000], mid: [3_000, 120_000], small: [800, 40_000] },
  US: { mega: [80, 900], xlarge: [40, 500], large: [20, 300], mid: [10, 150], small: [1.5, 60] },
};

const BIG_BANDS = new Set<BandKey>(['mega', 'xlarge', 'large']);

const ARCHETYPE_WEIGHTS_BIG: readonly (readonly [Archetype, number])[] = [
  ['steady', 50], ['growth', 15], ['cyclical', 18], ['debtFree', 8], ['negativeEquity', 3], ['turnaround', 4], ['biotech', 1],
];
const ARCHETYPE_WEIGHTS_SMALL: readonly (readonly [Archetype, number])[] = [
  ['steady', 32], ['growth', 12], ['cyclical', 13], ['lossMaker', 10], ['turnaround', 7], ['biotech', 10], ['negativeEquity', 5], ['debtFree', 9],
];

const KR_FIRST = ['Han', 'Dae', 'Sam', 'Seo', 'Jin', 'Tae', 'Gwang', 'Hyeon', 'Bo', 'Cheon', 'Eun', 'Gyeong', 'Nam', 'Pyeong', 'Sin', 'Yeong', 'Hwa', 'Il', 'Mun', 'Chang', 'Seong', 'Yu', 'Gang', 'Baek', 'Ra', 'Seol', 'Ho', 'Jeong', 'Do', 'Ok'];
const KR_SECOND = ['seong', 'il', 'jin', 'hae', 'bit', 'rim', 'san', 'gang', 'myeong', 'chan', 'ho', 'ra', 'yeon', 'kwang', 'heung', 'sol', 'do', 'in', 'woo', 'cheon', 'ri', 'nam', 'mi', 'ung'];
const US_FIRST = ['Ald', 'Bren', 'Cor', 'Dal', 'Eld', 'Fen', 'Gal', 'Hal', 'Ister', 'Jor', 'Kel', 'Lor', 'Mar', 'Nor', 'Orl', 'Pell', 'Quin', 'Rav', 'Sel', 'Tor', 'Ul', 'Ver', 'Wyn', 'Yar', 'Zel', 'Ash', 'Bel', 'Cal', 'Dun', 'Ev', 'Fair', 'Glen', 'Hart', 'Kin', 'Lyn', 'Mel', 'Pen', 'Stan', 'Thorn', 'Whit'];
const US_SECOND = ['brook', 'crest', 'dale', 'field', 'gate', 'haven', 'ley', 'mont', 'more', 'ridge', 'stone', 'ton', 'vale', 'wick', 'wood', 'ford', 'mere', 'ora', 'ix', 'ion', 'ant', 'ara', 'is', 'on', 'worth'];
const US_QUALIFIERS = ['Holdings', 'Group', 'International', 'Corporation', 'Partners', 'Inc.'];
/** Stems that would read as a real company's name. */
const STEM_DENYLIST = new Set(['Samseong', 'Hanil', 'Samil', 'Hansol', 'Hanjin', 'Samjin', 'Hanmi', 'Daewoo', 'Hanra', 'Ilyeon', 'Yuhan', 'Marion', 'Halton', 'Galton', 'Norton', 'Stanley', 'Fairfield', 'Ashford', 'Calvin']);
/** Tickers of household-name US companies, kept away from invented ones. */
const TICKER_DENYLIST = new Set(['AAPL', 'MSFT', 'GOOG', 'GOOGL', 'AMZN', 'META', 'NVDA', 'TSLA', 'BRK', 'JPM', 'V', 'MA', 'WMT', 'XOM', 'JNJ', 'UNH', 'PG', 'HD', 'KO', 'PEP', 'AVGO', 'ORCL', 'IBM', 'INTC', 'AMD', 'NFLX', 'DIS', 'BAC', 'CVX', 'LLY', 'COST', 'F', 'GM', 'T', 'VZ', 'GE', 'C', 'GS', 'MS', 'BA']);

const TECH_SECTORS = new Set(['Semiconductors', 'Software', 'Internet', 'Hardware', 'Biotech', 'Games', 'Medical Devices']);

export interface UniverseOptions {
  seed: number;
  size: DemoSize;
  scale: number;
}

export function buildUniverse(options: UniverseOptions): CompanyProfile[] {
  const profiles: CompanyProfile[] = [];
  for (const market of ['KR', 'US'] as const) profiles.push(...buildMarket(market, options));
  profiles.sort((a, b) => compareSecurities(a.security, b.security));
  return profiles;
}

export function compareSecurities(a: Security, b: Security): number {
  if (a.market !== b.market) return a.market < b.market ? -1 : 1;
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

function buildMarket(market: Market, { seed, size, scale }: UniverseOptions): CompanyProfile[] {
  const rng = new Rng(seed, `universe:${market}:${size}:${scale}`);
  const sectors = MARKET_SECTORS[market];
  const usedCodes = new Set<string>();
  const usedNames = new Set<string>();
  const profiles: CompanyProfile[] = [];
  const counts = BAND_COUNTS[size][market];

  for (const band of ['mega', 'xlarge', 'large', 'mid', 'small'] as const) {
    const count = Math.max(1, Math.round(counts[band] * scale));
    const [lo, hi] = BAND_RANGES[market][band];
    for (let i = 0; i < count; i++) {
      const big = BIG_BANDS.has(band);
      const archetype = rng.weighted(big ? ARCHETYPE_WEIGHTS_BIG : ARCHETYPE_WEIGHTS_SMALL);
      const sector = pickSector(rng, sectors, archetype, band === 'mega' || band === 'xlarge');
      const economics = SECTOR_ECONOMICS[sector.name];
      if (economics === undefined) throw new Error(`no economics for sector ${sector.name}`);
      // Stay clear of the band edges so that rounding the price never moves a company across.
      let targetMarketCap = rng.logUniform(lo * 1.08, hi * 0.92);
      if (band === 'mega') targetMarketCap = i === 0 ? hi * 0.9 : rng.logUniform(lo * 1.08, lo * (market === 'KR' ? 6 : 8));
      const [pLo, pHi] = PRICE_RANGES[market][band];
      const targetPrice = rng.logUniform(pLo, pHi);
      const name = inventName(rng, market, sector, usedNames);
      const code = market === 'KR' ? inventKrCode(rng, usedCodes) : inventTicker(rng, name, usedCodes);
      const exchange =
        market === 'KR'
          ? rng.chance(big ? 0.92 : band === 'mid' ? 0.5 : TECH_SECTORS.has(sector.name) ? 0.15 : 0.35) ? 'KOSPI' : 'KOSDAQ'
          : rng.chance(TECH_SECTORS.has(sector.name) ? 0.75 : 0.2) ? 'NASDAQ' : 'NYSE';
      const fiscalYearEndMonth = market === 'KR' || rng.chance(0.85) ? 12 : rng.pick([3, 6, 9]);
      const consolidated = !(market === 'KR' && band === 'small' && rng.chance(0.03));
      profiles.push({
        security: { market, code, name, exchange, sector: sector.name, currency: currencyOf(market), fiscalYearEndMonth, source: 'demo' },
        band,
        targetMarketCap,
        targetPrice,
        archetype,
        economics,
        consolidated,
      });
    }
  }
  if (market === 'US') addClassShares(rng, profiles, usedCodes);
  return profiles;
}

function pickSector(rng: Rng, sectors: readonly MarketSector[], archetype: Archetype, big: boolean): MarketSector {
  const fits = (sector: MarketSector): boolean => {
    const economics = SECTOR_ECONOMICS[sector.name];
    if (economics === undefined) return false;
    if (archetype === 'biotech') return sector.name === 'Biotech';
    if (archetype === 'cyclical') return economics.cyclical;
    if (sector.name === 'Biotech' && archetype !== 'lossMaker' && archetype !== 'growth' && archetype !== 'steady') return false;
    if (FINANCIAL_SECTORS.has(sector.name)) return archetype === 'steady' || archetype === 'growth';
    return true;
  };
  const candidates = sectors.filter(fits).map((sector) => [sector, big ? sector.bigWeight + 0.2 : sector.weight] as const);
  return rng.weighted(candidates);
}

function inventName(rng: Rng, market: Market, sector: MarketSector, used: Set<string>): string {
  for (let attempt = 0; attempt < 40; attempt++) {
    const stem = market === 'KR' ? rng.pick(KR_FIRST) + rng.pick(KR_SECOND) : rng.pick(US_FIRST) + rng.pick(US_SECOND);
    if (STEM_DENYLIST.has(stem)) continue;
    let name = `${stem} ${rng.pick(sector.words)}`;
    if (attempt >= 10 && market === 'US') name = `${name} ${rng.pick(US_QUALIFIERS)}`;
    if (attempt >= 10 && market === 'KR') name = `${name} ${rng.pick(['Holdings', 'Industrial', 'Corp.', 'Global'])}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
  // A very large universe can exhaust the combinations; a numbered series stays unique.
  let n = 2;
  const base = `${rng.pick(market === 'KR' ? KR_FIRST : US_FIRST)}${rng.pick(market === 'KR' ? KR_SECOND : US_SECOND)} ${rng.pick(sector.words)}`;
  while (used.has(`${base} ${n}`)) n++;
  used.add(`${base} ${n}`);
  return `${base} ${n}`;
}

/** KR codes: six digits, usually ending in 0 like real common-share codes; never 999999. */
function inventKrCode(rng: Rng, used: Set<string>): string {
  for (;;) {
    const code = String(rng.int(1, 49_999) * 10).padStart(6, '0');
    if (code !== '999999' && !used.has(code)) {
      used.add(code);
      return code;
    }
  }
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** US tickers: 1-5 letters, built from the name the way exchanges' mnemonics usually are. */
function inventTicker(rng: Rng, name: string, used: Set<string>): string {
  const letters = name.replace(/[^A-Za-z]/g, '').toUpperCase();
  const consonants = letters[0] + letters.slice(1).replace(/[AEIOU]/g, '');
  for (let attempt = 0; ; attempt++) {
    const length = attempt < 20 ? rng.weighted([[2, 1], [3, 6], [4, 8], [5, 1]] as const) : rng.int(3, 5);
    let ticker: string;
    if (attempt < 4) ticker = (attempt % 2 === 0 ? letters : consonants).slice(0, length);
    else {
      ticker = letters.slice(0, 1);
      while (ticker.length < length) ticker += LETTERS[rng.int(0, 25)];
    }
    if (ticker.length >= 1 && !used.has(ticker) && !TICKER_DENYLIST.has(ticker)) {
      used.add(ticker);
      return ticker;
    }
  }
}

/**
 * A few US companies list a second share class (`XXXX.B`); the service must treat `.` and
 * `-` as the same separator, so the demo has to contain some.
 */
function addClassShares(rng: Rng, profiles: CompanyProfile[], used: Set<string>): void {
  const candidates = profiles.filter((p) => p.band !== 'small' && p.security.code.length <= 4);
  const chosen = rng.shuffle([...candidates]).slice(0, 3);
  for (const profile of chosen) {
    const code = `${profile.security.code}.B`;
    if (used.has(code)) continue;
    used.delete(profile.security.code);
    used.add(code);
    profile.security.code = code;
  }
}
