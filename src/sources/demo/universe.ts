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

/** Band limits in the market's currency (the published market-cap bands, src/domain/v3.ts). */
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
/** The Hangul of each romanised syllable above (Revised Romanisation), first or second. */
const KR_SYLLABLES: Record<string, string> = {
  han: '한', dae: '대', sam: '삼', seo: '서', jin: '진', tae: '태', gwang: '광', hyeon: '현', bo: '보', cheon: '천',
  eun: '은', gyeong: '경', nam: '남', pyeong: '평', sin: '신', yeong: '영', hwa: '화', il: '일', mun: '문', chang: '창',
  seong: '성', yu: '유', gang: '강', baek: '백', ra: '라', seol: '설', ho: '호', jeong: '정', do: '도', ok: '옥',
  hae: '해', bit: '빛', rim: '림', san: '산', myeong: '명', chan: '찬', kwang: '광', heung: '흥', sol: '솔', in: '인',
  woo: '우', ri: '리', mi: '미', ung: '웅', yeon: '연',
};
/**
 * How Korean listed companies write each KR sector word (sectors.ts) in their Korean names:
 * 전자, 화학, 중공업 where Korean has the word, the loanword in Hangul where listings use it
 * (바이오로직스, 엔터테인먼트). Every KR sector word has one, and no two share one.
 */
const KR_WORDS: Record<string, string> = {
  Semicon: '세미콘', Semiconductor: '반도체', Micro: '마이크로', Silicon: '실리콘',
  Motors: '모터스', 'Motor Company': '자동차',
  Autotech: '오토텍', Automotive: '오토모티브', 'Auto Systems': '오토시스템',
  'Heavy Industries': '중공업', Shipbuilding: '조선', Marine: '마린',
  Battery: '배터리', 'Cell Materials': '셀소재', 'Energy Materials': '에너지머티리얼즈',
  Display: '디스플레이', Optronics: '옵트로닉스',
  Chemical: '화학', Petrochem: '유화', 'Fine Chemical': '정밀화학',
  Steel: '철강', Metal: '금속',
  'Financial Group': '금융지주', Bank: '은행',
  Life: '생명', 'Fire & Marine': '화재해상', Insurance: '보험',
  Securities: '증권', Investment: '투자증권',
  Bio: '바이오', Biologics: '바이오로직스', Therapeutics: '테라퓨틱스', Genetics: '제네틱스',
  Pharm: '팜', Pharmaceutical: '제약',
  Soft: '소프트', Systems: '시스템즈', Data: '데이타',
  Net: '넷', Online: '온라인', Platform: '플랫폼',
  Telecom: '텔레콤', Networks: '네트웍스',
  Power: '전력', 'City Gas': '도시가스',
  'E&C': '이앤씨', Construction: '건설', Engineering: '엔지니어링',
  Mart: '마트', Retail: '리테일', 'Department Store': '백화점',
  Foods: '식품', 'F&B': '에프앤비', Beverage: '음료',
  Entertainment: '엔터테인먼트', Media: '미디어', Studio: '스튜디오',
  Logistics: '로지스틱스', Shipping: '해운', Airlines: '항공', Express: '익스프레스',
  Machinery: '기계', Precision: '정밀', Industrial: '산업',
  Oil: '오일', Energy: '에너지', Petroleum: '석유',
  Cosmetics: '화장품', Beauty: '뷰티',
  Games: '게임즈', Interactive: '인터랙티브', Play: '플레이',
  REIT: '리츠',
  Aerospace: '에어로스페이스', 'Defense Systems': '디펜스',
  'Electro-Mechanics': '전기', Electronics: '전자', Components: '부품',
  Textile: '섬유', Fashion: '패션', Spinning: '방직',
};
const KR_QUALIFIERS: readonly (readonly [string, string])[] = [['Holdings', '홀딩스'], ['Industrial', '인더스트리'], ['Corp.', '코퍼레이션'], ['Global', '글로벌']];
/**
 * Korean names the generator can form that real listed companies carry (or carried): such a
 * name gets a qualifier, as a clash with any name already drawn does.
 */
const REAL_KR_NAMES = new Set(['대림산업', '태광산업', '대성산업', '화성산업', '일진전기', '남해화학', '태영건설', '일성건설', '서흥', '대성에너지', '경남에너지', '한성기업', '대원화성', '대원제약', '삼천리', '서한', '동원산업', '한일화학', '신성통상', '진흥기업', '대창', '삼화전기', '삼화전자', '일신방직', '경방', '대한제강', '한국철강', '삼영전자', '대영전자', '삼진제약', '영진약품', '일양약품', '대원산업', '화신', '서연', '한화', '대한유화', '보령', '태경산업', '신도리코', '성신양회', '대웅제약', '신일제약', '성호전자', '경인전자', '삼영화학', '백광산업', '대림건설', '한빛소프트', '일진디스플레이']);

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
  const usedKoreanNames = new Set<string>();
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
      const invented = inventName(rng, market, sector, usedNames);
      const name = market === 'KR' ? uniqueKoreanName(invented.korean, usedKoreanNames) : invented.english;
      const nameEn = invented.english;
      const code = market === 'KR' ? inventKrCode(rng, usedCodes) : inventTicker(rng, nameEn, usedCodes);
      const exchange =
        market === 'KR'
          ? rng.chance(big ? 0.92 : band === 'mid' ? 0.5 : TECH_SECTORS.has(sector.name) ? 0.15 : 0.35) ? 'KOSPI' : 'KOSDAQ'
          : rng.chance(TECH_SECTORS.has(sector.name) ? 0.75 : 0.2) ? 'NASDAQ' : 'NYSE';
      const fiscalYearEndMonth = market === 'KR' || rng.chance(0.85) ? 12 : rng.pick([3, 6, 9]);
      const consolidated = !(market === 'KR' && band === 'small' && rng.chance(0.03));
      profiles.push({
        security: { market, code, name, nameEn, exchange, sector: sector.name, currency: currencyOf(market), fiscalYearEndMonth, source: 'demo' },
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

/**
 * An invented name: English (the US name; the KR English name) and, for KR, the Korean name
 * the exchange would list: the same syllables in Hangul and the sector word as Korean listings
 * write it, with no spaces ('Hanseong Electronics' = 한성전자). The random draws are the ones
 * the English names always took, so the rest of the universe does not move.
 */
function inventName(rng: Rng, market: Market, sector: MarketSector, used: Set<string>): { english: string; korean: string } {
  const korean = (first: string, second: string, word: string, qualifier?: string): string =>
    [first, second].map((syllable) => KR_SYLLABLES[syllable.toLowerCase()] ?? syllable).join('') + (KR_WORDS[word] ?? word) + (qualifier ?? '');
  for (let attempt = 0; attempt < 40; attempt++) {
    const [first, second] = market === 'KR' ? [rng.pick(KR_FIRST), rng.pick(KR_SECOND)] : [rng.pick(US_FIRST), rng.pick(US_SECOND)];
    const stem = first + second;
    if (STEM_DENYLIST.has(stem)) continue;
    const word = rng.pick(sector.words);
    let name = `${stem} ${word}`;
    let qualifierKo: string | undefined;
    if (attempt >= 10 && market === 'US') name = `${name} ${rng.pick(US_QUALIFIERS)}`;
    if (attempt >= 10 && market === 'KR') {
      const [en, ko] = rng.pick(KR_QUALIFIERS);
      name = `${name} ${en}`;
      qualifierKo = ko;
    }
    if (!used.has(name)) {
      used.add(name);
      return { english: name, korean: market === 'KR' ? korean(first, second, word, qualifierKo) : name };
    }
  }
  // A very large universe can exhaust the combinations; a numbered series stays unique.
  let n = 2;
  const [first, second] = [rng.pick(market === 'KR' ? KR_FIRST : US_FIRST), rng.pick(market === 'KR' ? KR_SECOND : US_SECOND)];
  const word = rng.pick(sector.words);
  const base = `${first}${second} ${word}`;
  while (used.has(`${base} ${n}`)) n++;
  used.add(`${base} ${n}`);
  return { english: `${base} ${n}`, korean: market === 'KR' ? `${korean(first, second, word)}${n}` : `${base} ${n}` };
}

/**
 * A Korean name no other demo company has and no real listed company is known to: a clash
 * takes the first free qualifier, then a number (two English names can meet in one Korean
 * one: 'Hanil'/'Han il' style stems, a word and a qualifier).
 */
function uniqueKoreanName(korean: string, used: Set<string>): string {
  const free = (name: string) => !used.has(name) && !REAL_KR_NAMES.has(name);
  const candidates = [korean, ...KR_QUALIFIERS.map(([, ko]) => `${korean}${ko}`)];
  let name = candidates.find(free);
  for (let n = 2; name === undefined; n++) if (free(`${korean}${n}`)) name = `${korean}${n}`;
  used.add(name);
  return name;
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
