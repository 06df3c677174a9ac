// The replica's universe: re-keyed copies of the companies whose real answers are recorded in
// test/fixtures/real (PROVENANCE.md there). Each copy carries new keys that cannot be mistaken
// for a real company's (KR corp_code 9xxxxxxx and stock code 9xxxxx; US CIK 9,000,000 + n and
// a ticker starting with Q) and says in its name which real company it copies.
//
// Prices are not recorded at this scale: each copy's daily prices follow a deterministic path
// around its template's recorded close (Samsung Electronics 2022-06-22 for KR, a grouped-daily
// row for US), so a day's answer is the same on every run.

import { real, realJson } from '../../test/e2e/upstream.js';

/** Real scale: listed companies per market (KOSPI ~950 + KOSDAQ ~1,750; US listed operating companies). */
export const FULL_SCALE = { kr: 2_700, krKospiShare: 0.35, us: 6_000, krUnlisted: 97_000 } as const;

export interface KrCompany {
  index: number;
  corpCode: string;
  stockCode: string;
  /** KOSPI `Y` or KOSDAQ `K` (OpenDART corp_cls). */
  corpCls: 'Y' | 'K';
  name: string;
  nameEn: string;
  /** The real company copied (recorded company.json). */
  template: KrTemplate;
  /** Only separate (OFS) statements, as many KOSDAQ filers without subsidiaries: CFS answers 013. */
  separateOnly: boolean;
  /** The close its price path circles (won). */
  basePrice: number;
  /**
   * A financial-sector company (one in 25, about the share of banks, insurers, securities firms
   * and other financials among KOSPI and KOSDAQ listings): it files its sector's own statement
   * layout (the bulk files' sector members, re-keyed real 2025 Q1 rows; see bench/replica/bulk.ts)
   * and its company.json names a financial KSIC code. Null for an industrial company.
   */
  financial: FinancialSector | null;
}

/** The bulk files' financial sectors (FORMATS.md section 1), with the KSIC code a copy's company.json carries. */
export const FINANCIAL_SECTORS = [
  { sector: '은행', ksic: '64110' },
  { sector: '보험', ksic: '65110' },
  { sector: '증권', ksic: '66121' },
  { sector: '금융기타', ksic: '64992' },
] as const;
export type FinancialSector = (typeof FINANCIAL_SECTORS)[number]['sector'];

export interface KrTemplate {
  corpCode: string;
  company: Record<string, string>;
}

export interface UsCompany {
  index: number;
  cik: number;
  ticker: string;
  title: string;
  template: UsTemplate;
  basePrice: number;
  /**
   * A foreign private issuer (one in ten US listings, as among real US listings): it files 20-F
   * (or 40-F) with `ifrs-full` facts in its own currency, yearly plus a half-year, and trades
   * as ADSs (see SecApi.factsTemplate). Null for a domestic 10-K filer.
   */
  foreign: ForeignFiler | null;
}

export interface ForeignFiler {
  form: '20-F' | '40-F';
  /** The reporting currency of its facts. */
  currency: string;
  /** Units of that currency per USD the replica converts its template's USD facts at. */
  perUsd: number;
  /**
   * Gives a USD convenience translation of each filing's own period beside its own currency (as
   * TSMC, Toyota and Sony do in their 20-F; many others, e.g. ASML, SAP, give none).
   */
  convenience: boolean;
}

/** The foreign filers' reporting currencies, in turn (40-F: Canadian filers under MJDS). */
export const FOREIGN_FILERS: readonly ForeignFiler[] = [
  { form: '20-F', currency: 'EUR', perUsd: 0.92, convenience: false },
  { form: '20-F', currency: 'JPY', perUsd: 150, convenience: true },
  { form: '20-F', currency: 'TWD', perUsd: 32, convenience: true },
  { form: '20-F', currency: 'USD', perUsd: 1, convenience: false },
  { form: '40-F', currency: 'CAD', perUsd: 1.36, convenience: false },
];

export interface UsTemplate {
  ticker: string;
  /** Recorded companyfacts (gzipped file under test/fixtures/real). */
  facts: string;
  /**
   * Recorded submissions used for its copies (Apple's and Marvell's are recorded), or null: then
   * its copies' submissions are CONSTRUCTED from the facts and `placement` (SecApi.submissionsOf).
   */
  submissions: string | null;
  /** Where `submissions` is null: the company's SIC code and description and its exchange, as EDGAR lists them. */
  placement?: { sic: string; sicDescription: string; exchange: string };
}

const KR_TEMPLATES: KrTemplate[] = [
  { corpCode: '00126380', company: realJson<Record<string, string>>('opendart/company_00126380.json.gz') },
  { corpCode: '00164779', company: realJson<Record<string, string>>('opendart/company_00164779.json') },
];

/**
 * The US companies copied, in turn (round robin over the index): large and small caps, industrials,
 * retail, energy, health care, a bank holding company and insurers, loss-makers and companies
 * without debt (test/fixtures/real/PROVENANCE.md, sec). Apple's and Marvell's submissions are
 * recorded; the others' are constructed from their facts with the SIC code and exchange below.
 */
export const US_TEMPLATES: readonly UsTemplate[] = [
  { ticker: 'AAPL', facts: 'sec/companyfacts_CIK0000320193_AAPL.json.gz', submissions: 'sec/submissions_CIK0000320193_AAPL.json.gz' },
  { ticker: 'TSLA', facts: 'sec/companyfacts_CIK0001318605_TSLA.json.gz', submissions: null, placement: { sic: '3711', sicDescription: 'Motor Vehicles & Passenger Car Bodies', exchange: 'Nasdaq' } },
  { ticker: 'MRVL', facts: 'sec/companyfacts_CIK0001835632_MRVL.json.gz', submissions: 'sec/submissions_CIK0001835632_MRVL.json.gz' },
  { ticker: 'XOM', facts: 'sec/companyfacts_CIK0000034088_XOM.json.gz', submissions: null, placement: { sic: '2911', sicDescription: 'Petroleum Refining', exchange: 'NYSE' } },
  { ticker: 'HD', facts: 'sec/companyfacts_CIK0000354950_HD.json.gz', submissions: null, placement: { sic: '5211', sicDescription: 'Retail-Lumber & Other Building Materials Dealers', exchange: 'NYSE' } },
  { ticker: 'SOFI', facts: 'sec/companyfacts_CIK0001818874_SOFI.json.gz', submissions: null, placement: { sic: '6199', sicDescription: 'Finance Services', exchange: 'Nasdaq' } },
  { ticker: 'JNJ', facts: 'sec/companyfacts_CIK0000200406_JNJ.json.gz', submissions: null, placement: { sic: '2834', sicDescription: 'Pharmaceutical Preparations', exchange: 'NYSE' } },
  { ticker: 'PG', facts: 'sec/companyfacts_CIK0000080424_PG.json.gz', submissions: null, placement: { sic: '2840', sicDescription: 'Soap, Detergents, Cleang Preparations, Perfumes, Cosmetics', exchange: 'NYSE' } },
  { ticker: 'COST', facts: 'sec/companyfacts_CIK0000909832_COST.json.gz', submissions: null, placement: { sic: '5331', sicDescription: 'Retail-Variety Stores', exchange: 'Nasdaq' } },
  { ticker: 'UNH', facts: 'sec/companyfacts_CIK0000731766_UNH.json.gz', submissions: null, placement: { sic: '6324', sicDescription: 'Hospital & Medical Service Plans', exchange: 'NYSE' } },
  { ticker: 'BRK', facts: 'sec/companyfacts_CIK0001067983_BRK.json.gz', submissions: null, placement: { sic: '6331', sicDescription: 'Fire, Marine & Casualty Insurance', exchange: 'NYSE' } },
  { ticker: 'V', facts: 'sec/companyfacts_CIK0001403161_V.json.gz', submissions: null, placement: { sic: '7389', sicDescription: 'Services-Business Services, NEC', exchange: 'NYSE' } },
  { ticker: 'AVGO', facts: 'sec/companyfacts_CIK0001730168_AVGO.json.gz', submissions: null, placement: { sic: '3674', sicDescription: 'Semiconductors & Related Devices', exchange: 'Nasdaq' } },
  { ticker: 'SNOW', facts: 'sec/companyfacts_CIK0001640147_SNOW.json.gz', submissions: null, placement: { sic: '7372', sicDescription: 'Services-Prepackaged Software', exchange: 'NYSE' } },
  { ticker: 'CELH', facts: 'sec/companyfacts_CIK0001341766_CELH.json.gz', submissions: null, placement: { sic: '2086', sicDescription: 'Bottled & Canned Soft Drinks & Carbonated Waters', exchange: 'Nasdaq' } },
  { ticker: 'SOUN', facts: 'sec/companyfacts_CIK0001840856_SOUN.json.gz', submissions: null, placement: { sic: '7374', sicDescription: 'Services-Computer Processing & Data Preparation', exchange: 'Nasdaq' } },
  { ticker: 'ONDS', facts: 'sec/companyfacts_CIK0001646188_ONDS.json.gz', submissions: null, placement: { sic: '3663', sicDescription: 'Radio & Tv Broadcasting & Communications Equipment', exchange: 'Nasdaq' } },
  { ticker: 'FIG', facts: 'sec/companyfacts_CIK0001579878_FIG.json.gz', submissions: null, placement: { sic: '7372', sicDescription: 'Services-Prepackaged Software', exchange: 'NYSE' } },
  { ticker: 'RKLB', facts: 'sec/companyfacts_CIK0001819994_RKLB.json.gz', submissions: null, placement: { sic: '3760', sicDescription: 'Guided Missiles & Space Vehicles & Parts', exchange: 'Nasdaq' } },
  { ticker: 'PLTR', facts: 'sec/companyfacts_CIK0001321655_PLTR.json.gz', submissions: null, placement: { sic: '7372', sicDescription: 'Services-Prepackaged Software', exchange: 'Nasdaq' } },
  { ticker: 'APP', facts: 'sec/companyfacts_CIK0001751008_APP.json.gz', submissions: null, placement: { sic: '7372', sicDescription: 'Services-Prepackaged Software', exchange: 'Nasdaq' } },
];

/** A ticker from an index: Q then four letters (QAAAA, QAAAB, ...), no real listing uses them all. */
export function replicaTicker(i: number): string {
  let s = '';
  let n = i;
  for (let k = 0; k < 4; k++) {
    s = String.fromCharCode(65 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return `Q${s}`;
}

/** Deterministic fraction in [0, 1) from an integer (a hash, not a random stream). */
export function unit(n: number): number {
  let x = (n ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

export interface Universe {
  scale: number;
  kr: KrCompany[];
  krUnlisted: number;
  us: UsCompany[];
  krByCorp: Map<string, KrCompany>;
  usByCik: Map<number, UsCompany>;
}

export function buildUniverse(scale: number): Universe {
  const nKr = Math.max(2, Math.round(FULL_SCALE.kr * scale));
  const nUs = Math.max(3, Math.round(FULL_SCALE.us * scale));
  const kospi = Math.round(nKr * FULL_SCALE.krKospiShare);
  const kr: KrCompany[] = [];
  for (let i = 0; i < nKr; i++) {
    const template = KR_TEMPLATES[i % KR_TEMPLATES.length] as KrTemplate;
    const c = template.company;
    kr.push({
      index: i,
      corpCode: `9${String(i).padStart(7, '0')}`,
      stockCode: `9${String(i).padStart(5, '0')}`,
      corpCls: i < kospi ? 'Y' : 'K',
      name: `${c['stock_name'] ?? ''} 복제${i}`,
      nameEn: `${c['corp_name_eng'] ?? ''} (re-keyed copy ${i} of ${template.corpCode})`,
      template,
      // Financial companies file consolidated statements (the bank and insurance groups do).
      separateOnly: i % 3 === 2 && i % 25 !== 12,
      basePrice: Math.round(1_000 + unit(i) * 99_000),
      financial: i % 25 === 12 ? (FINANCIAL_SECTORS[Math.floor(i / 25) % FINANCIAL_SECTORS.length] as (typeof FINANCIAL_SECTORS)[number]).sector : null,
    });
  }
  const us: UsCompany[] = [];
  for (let i = 0; i < nUs; i++) {
    const template = US_TEMPLATES[i % US_TEMPLATES.length] as UsTemplate;
    us.push({
      index: i,
      cik: 9_000_000 + i,
      ticker: replicaTicker(i),
      title: `Replica ${i} (re-keyed copy of ${template.ticker})`,
      template,
      basePrice: Math.round((2 + unit(i + 1_000_000) * 400) * 100) / 100,
      foreign: i % 10 === 7 ? (FOREIGN_FILERS[Math.floor(i / 10) % FOREIGN_FILERS.length] as ForeignFiler) : null,
    });
  }
  return {
    scale,
    kr,
    krUnlisted: Math.round(FULL_SCALE.krUnlisted * scale),
    us,
    krByCorp: new Map(kr.map((c) => [c.corpCode, c])),
    usByCik: new Map(us.map((c) => [c.cik, c])),
  };
}

/** A day's price of a copy: its base times a slow deterministic wave (days since 1970). */
export function priceOn(base: number, seed: number, day: number): { open: number; high: number; low: number; close: number; volume: number } {
  const wave = 1 + 0.25 * Math.sin(day / 60 + seed) + 0.05 * Math.sin(day / 7 + seed * 3);
  const close = base * wave;
  const open = close * (1 + 0.01 * Math.sin(day + seed));
  return {
    open,
    high: Math.max(open, close) * 1.01,
    low: Math.min(open, close) * 0.99,
    close,
    volume: Math.round(100_000 + unit(seed * 7919 + day) * 900_000),
  };
}

export const epochDay = (iso: string): number => Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86_400_000);
export const isoOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
/** Monday to Friday (the replica's markets have no holidays). */
export const isWeekday = (day: number): boolean => {
  const dow = (day + 4) % 7; // 1970-01-01 was a Thursday
  return dow !== 0 && dow !== 6;
};

export { real, realJson };
