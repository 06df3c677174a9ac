import { z } from 'zod';
import type { Market } from '../domain/model.js';
import { BAND_KEYS, type BandKey } from '../domain/results.js';
import { V3_FORMULA } from '../domain/v3.js';
import { bandKey, englishName, meta } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

export const DISCLAIMER =
  'For information only, not investment advice. Scores, target prices and gaps are the output of a published formula ' +
  '(V3) applied to reported figures; they are not forecasts or recommendations. Past backtest results do not guarantee future returns.';

const BANDS_PATTERN = new RegExp(`^(${BAND_KEYS.join('|')})(,(${BAND_KEYS.join('|')}))*$`);

const input = z.strictObject({
  market: z.enum(['KR', 'US', 'KR,US']).default('KR').describe('KR, US or KR,US (both on one scale; US net income converted to won)'),
  bands: z
    .string()
    .regex(BANDS_PATTERN, { error: `must be comma-separated band keys from ${BAND_KEYS.join(', ')}` })
    .default('mega,xlarge,large')
    .describe(`comma-separated market-cap bands from ${BAND_KEYS.join(', ')}`),
  limit: z.number().int().min(1).max(100).default(10).describe('rows to return'),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('rows to skip: the answer is rows [offset, offset + limit) of the sorted list; walk every row with offset += limit until offset >= totalCount'),
  asOf: asOfParam,
});

const row = z.object({
  ticker: z.string(),
  name: z.string().describe('As the exchange lists it: Korean for KR companies, English for US ones'),
  nameEn: englishName,
  market: z.enum(['KR', 'US']),
  currency: z.enum(['KRW', 'USD']),
  band: bandKey,
  marketCap: z.number().describe('Market capitalisation in the stock currency (KRW for KR, USD for US)'),
  currentPrice: z.number(),
  targetPrice: z.number().describe('currentPrice x (1 + gapPct / 100)'),
  gapPct: z.number().describe('Upside in percent, about a one-year horizon'),
  score: z.number().describe('V3 formula score'),
  yoy: z.number().describe('TTM net income year over year, percent'),
  ttmNiEok: z.number().describe('TTM net income in 100-million-won units'),
  supplyPct: z.number(),
  momentumPct: z.number().describe('Latest quarter net income year over year, percent'),
});

const output = z.object({
  market: z.string(),
  bands: z.array(z.string()),
  rows: z.array(row).describe('Sorted by gapPct descending; ties by score, then ticker'),
  totalCount: z.number().int().describe('Stocks that pass the market and band filter (all pages)'),
  formula: z.object({ score: z.string(), expectedReturn: z.string(), targetPrice: z.string(), gap: z.string(), backtest: z.string() }),
  updatedAt: meta.updatedAt,
  disclaimer: z.string(),
  source: meta.source,
  asOf: asOfField,
});

export const getRankings = defineTool({
  name: 'get_rankings',
  title: 'V3 rankings',
  description:
    'Top stocks by the V3 formula, ordered by upside (gapPct, highest first). Filter by market (KR, US or KR,US) and ' +
    'market-cap bands (KR: mega >= 20T won, xlarge 5-20T, large 1-5T, mid 300B-1T, small < 300B; US: mega >= $200B, ' +
    'xlarge $50-200B, large $10-50B, mid $3-10B, small < $3B). Served from the hourly cache.',
  input,
  restInput: input.extend({ limit: z.number().int().min(1).max(200).default(50).describe('rows to return') }),
  output,
  path: '/rankings',
  cacheable: true,
  async handler(args, ctx) {
    const past = args.asOf === undefined ? null : await ctx.data.past.universe(args.asOf);
    const data = past?.data ?? ctx.data;
    const markets: Market[] = args.market === 'KR,US' ? ['KR', 'US'] : [args.market];
    const bands = [...new Set(args.bands.split(','))] as BandKey[];
    const { rows, totalCount } = data.rankings(markets, bands, args.limit, args.offset);
    const answer = {
      market: args.market,
      bands,
      rows,
      totalCount,
      formula: V3_FORMULA,
      updatedAt: data.updatedAt,
      disclaimer: DISCLAIMER,
      source: data.source,
    };
    return withAsOf(answer, past?.asOf);
  },
});
