import { z } from 'zod';
import { searchKey } from '../domain/search.js';
import { sectorKo } from '../domain/sectors.js';
import { bandKey, englishName, meta, sectorKoField } from './shapes.js';
import { metaOf } from './answer.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

/** Longest query: longer than any listed company's name, short enough to scan cheaply. */
export const MAX_QUERY_LENGTH = 50;

const input = z.strictObject({
  q: z
    .string()
    .min(1)
    .max(MAX_QUERY_LENGTH)
    .refine((q) => searchKey(q) !== '', { error: 'must contain a letter or digit' })
    .describe(
      `what to find, 1 to ${MAX_QUERY_LENGTH} characters: a Korean or English company name or part of it, a 6-digit KR code or a US ticker; ` +
        'case, spaces, punctuation and full/half width are ignored; Korean initial consonants match too (ㅅㅅㅈㅈ finds 성산전자 in the demo universe)',
    ),
  market: z.enum(['KR', 'US']).optional().describe('KR or US; both when absent'),
  limit: z.number().int().min(1).max(50).default(10).describe('matches to return'),
  asOf: asOfParam,
});

const match = z.object({
  code: z.string().describe('Six digits (KR) or the ticker (US): what every other tool takes as `code`'),
  market: z.enum(['KR', 'US']),
  name: z.string().describe('As the exchange lists it: Korean for KR companies, English for US ones'),
  nameEn: englishName,
  exchange: z.string().describe('KOSPI or KOSDAQ; NYSE, NASDAQ, ...'),
  sector: z.string(),
  sectorKo: sectorKoField,
  band: bandKey.nullable().describe('Market-cap band of the latest close; null without a price'),
  currency: z.enum(['KRW', 'USD']),
  matchedOn: z.enum(['code', 'name', 'nameEn', 'initials']).describe('What the query matched: the code, the name, the English name, or the Korean initial consonants'),
  matchType: z.enum(['exact', 'prefix', 'contains']),
});

const output = z.object({
  q: z.string(),
  market: z.enum(['KR', 'US']).nullable().describe('The market searched; null for both'),
  matches: z
    .array(match)
    .describe(
      'Best first: the exact code or ticker; then a name equal to the query; then names (or codes) that start with it; then those that contain it. ' +
        'Ties: market cap descending (US converted at the snapshot USD/KRW), then KR before US, then code',
    ),
  totalCount: z.number().int().describe('Stocks that match, before limit'),
  updatedAt: meta.updatedAt,
  source: meta.source,
  asOf: asOfField,
});

export const searchStocks = defineTool({
  name: 'search_stocks',
  title: 'Find a stock',
  description:
    'Finds KR and US stocks by Korean name, English name, code or ticker, with partial matches (in the demo universe: "성산", "seongsan elec", "ㅅㅅㅈㅈ", "3905", "fenix air", "cori-b"), ' +
    'and answers each match with the code the other tools take, its market, names, exchange, sector, market-cap band and currency. ' +
    'Call it first when you know a company only by name.',
  input,
  output,
  path: '/stocks',
  cacheable: true,
  async handler(args, ctx) {
    // As of a day: the bands of that day's closes, the order of that day's market caps.
    const past = args.asOf === undefined ? null : await ctx.data.past.universe(args.asOf);
    const data = past?.data ?? ctx.data;
    const { matches, totalCount } = data.search({ q: args.q, market: args.market, limit: args.limit });
    const answer = {
      q: args.q,
      market: args.market ?? null,
      matches: matches.map(({ entry: e, field, kind }) => ({
        code: e.code,
        market: e.market,
        name: e.name,
        nameEn: e.nameEn,
        exchange: e.exchange,
        sector: e.sector,
        sectorKo: sectorKo(e.sector),
        band: e.band,
        currency: e.currency,
        matchedOn: field,
        matchType: kind,
      })),
      totalCount,
      ...metaOf(data),
    };
    return withAsOf(answer, past?.asOf);
  },
});
