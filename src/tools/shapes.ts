// Output schema pieces shared by several tools. The TypeScript result types in
// src/domain/results.ts and these schemas describe the same objects; the tools' handlers are
// type-checked against both.

import { z } from 'zod';
import { BAND_KEYS, PERCENTILE_METRICS } from '../domain/results.js';

export const meta = {
  updatedAt: z.string().describe('When the served dataset was computed (ISO 8601 with offset)'),
  source: z.string().describe('`demo` for the embedded demo universe, else the upstream sources'),
};

/** Optional so that the seed's result shapes stay valid; every result carries it. */
/** The Korean name of a `sector` beside it (src/domain/sectors.ts); null for a name outside its table. */
export const sectorKoField = z.string().nullable().describe('The sector in Korean (반도체 for Semiconductors); null where the service has no Korean name. Sector filters take either name');

export const englishName = z
  .string()
  .nullable()
  .optional()
  .describe('English name where known (KR: as the company registers it; US: the name); null when unknown');

export const stockIdentity = {
  code: z.string().describe('The stock code as stored: six digits (KR) or upper-case ticker (US)'),
  market: z.enum(['KR', 'US']),
  name: z.string().describe('As the exchange lists it: Korean for KR companies, English for US ones'),
  nameEn: englishName,
  currency: z.enum(['KRW', 'USD']).describe('Currency of prices and amounts of this stock'),
};

export const bandKey = z.enum(BAND_KEYS as [string, ...string[]]);

export const snapshotMetric = z.object({
  value: z.number().nullable(),
  reason: z.string().optional().describe('Why value is null'),
  unit: z.string().describe('x (multiple), %, days, KRW or USD'),
  referenceQuarter: z.string().nullable().describe('Latest fiscal quarter used, e.g. 2025Q3'),
  disclosedOn: z.string().nullable().describe('Disclosure date of that quarter as used (point in time)'),
  priceDate: z.string().nullable().describe('Date of the closing price used; null when no price enters'),
  basis: z.string().optional().describe('How a per-share figure was taken (EPS: reported basic EPS, or net income over a share count); absent elsewhere'),
  restated: z.literal(true).optional().describe('Present (true) where a later version of a filing the figure uses (an amendment, a period filed again) changed it; absent elsewhere'),
  firstKnown: z
    .object({
      value: z.number().nullable().describe('The figure from the first-known version of each filing it uses'),
      disclosedOn: z.string().nullable().describe('When that first-known figure became known (its latest disclosure date)'),
    })
    .optional()
    .describe('Only beside restated: the figure as first known'),
});

export const percentileEntry = z.object({
  metric: z.enum(PERCENTILE_METRICS),
  unit: z.string(),
  value: z.number().nullable().describe('The raw value of the metric'),
  reason: z.string().optional(),
  percentile: z.number().min(0).max(100).nullable().describe('0..100 within cohort members that have a value'),
  cohortSize: z.number().int().describe('Cohort members with a value for this metric'),
});

export const priceBar = z.object({
  date: z.string().describe('Last trading day in the bar'),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
  tradedValue: z.number(),
});
