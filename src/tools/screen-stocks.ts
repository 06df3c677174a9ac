// screen_stocks: the whole served universe filtered and sorted by any computed figure, in one
// call. The figures are the ones get_stock_snapshot, get_sector_percentile, get_stock_score and
// get_rankings serve (read from the same dataset views, never recomputed); src/domain/screen.ts
// filters and orders them. The MCP door takes structured arguments; REST takes the same as query
// text (`filters=roe:10:,per::15`, `sort=roe:desc`), parsed here into the same arguments.

import { z } from 'zod';
import type { Market } from '../domain/model.js';
import { BAND_KEYS, type BandKey } from '../domain/results.js';
import type { Grade } from '../domain/results.js';
import { sectorFromEither } from '../domain/sectors.js';
import {
  DEFAULT_SCREEN_FIELDS,
  GRADE_RANK,
  isScreenNumberField,
  screen,
  ScreenRows,
  SCREEN_FIELD_DEFINITIONS,
  SCREEN_FIELDS,
  SCREEN_NUMBER_FIELDS,
  SCREEN_TEXT_FIELDS,
  type ScreenBound,
  type ScreenCell,
  type ScreenField,
} from '../domain/screen.js';
import type { ServedDataset } from '../serving/dataset.js';
import { servedScreenOf, type ServedScreen } from '../serving/screen.js';
import { ApiError } from '../kernel/errors.js';
import { formatParam, mcpFormatParam, truncationFields } from './series.js';
import { bandKey, englishName, meta, sectorKoField } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

const FIELD_LIST = SCREEN_FIELDS.join(', ');
const NUMBER_FIELD_LIST = SCREEN_NUMBER_FIELDS.join(', ');
const BOUND_FIELD_LIST = `${NUMBER_FIELD_LIST}, grade`;
/** Most bounds one screen takes: one per numeric field is plenty, and it bounds the work. */
const MAX_FILTERS = 20;
const DEFAULT_SORT = { field: 'marketCap', order: 'desc' } as const;
const EXCHANGE_EXAMPLES = 'KOSPI, KOSDAQ for KR; NYSE, NASDAQ, ... for US';

const GRADES = Object.keys(GRADE_RANK) as Grade[];
/** A bound's end: a number in the field unit, or a grade for the field grade. */
const boundEnd = z.union([z.number(), z.enum(GRADES as [Grade, ...Grade[]])]);
const bound = z.strictObject({
  field: z.string().max(40).describe('A numeric field or grade (see filters)'),
  min: boundEnd.optional().describe('Lowest value kept, inclusive, in the field unit (roe min 10 = 10 %; grade min "B+" keeps A+, A and B+)'),
  max: boundEnd.optional().describe('Highest value kept, inclusive'),
});
const sortSchema = z.strictObject({
  field: z.string().max(40).describe('A numeric field or grade'),
  order: z.enum(['asc', 'desc']).default('desc'),
});

const marketParam = z.enum(['KR', 'US', 'KR,US']).default('KR,US').describe('KR, US or KR,US (as get_rankings)');
const limitParam = z.number().int().min(1).max(200).default(50).describe('rows to return');
const offsetParam = z
  .number()
  .int()
  .min(0)
  .default(0)
  .describe('rows to skip: the answer is rows [offset, offset + limit) of the sorted list; page with offset += limit until offset >= totalCount');

const FILTERS_DESCRIPTION =
  `Bounds, all of which a stock must meet (AND), each {field, min?, max?} inclusive, in the field unit (roe min 10 = 10 %); ` +
  `a stock without a value for the field fails its bound (droppedForNull counts them); no min and no max keeps stocks with a value. ` +
  `Fields: ${BOUND_FIELD_LIST} (grade bounds are grades: {field: grade, min: "B+"}). Units: stock-data://screen-fields`;

/** The MCP door's arguments (REST's are parsed into the same). */
const input = z.strictObject({
  market: marketParam,
  sectors: z.array(z.string().max(100)).max(100).default([]).describe('Sector names (stock-data://sectors), in English or Korean (Semiconductors or 반도체); empty: every sector'),
  exchanges: z.array(z.string().max(20)).max(20).default([]).describe(`Exchanges (${EXCHANGE_EXAMPLES}); empty: every exchange`),
  bands: z.array(z.enum(BAND_KEYS as [BandKey, ...BandKey[]])).max(5).default([]).describe(`Market-cap bands from ${BAND_KEYS.join(', ')}; empty: every stock, with a price or not`),
  filters: z.array(bound).max(MAX_FILTERS).default([]).describe(FILTERS_DESCRIPTION),
  sort: sortSchema.default({ ...DEFAULT_SORT }).describe(`{field, order}: a numeric field or grade; stocks without a value come last; ties by code. Default ${DEFAULT_SORT.field} ${DEFAULT_SORT.order}`),
  fields: z
    .array(z.string().max(40))
    .max(SCREEN_FIELDS.length)
    .optional()
    .describe(`Fields each row carries besides code, market, name, nameEn, sector, band and currency; default ${DEFAULT_SCREEN_FIELDS.join(', ')}. Any of: ${FIELD_LIST}`),
  limit: limitParam,
  offset: offsetParam,
  format: mcpFormatParam,
  asOf: asOfParam,
});

// REST's query text, parsed into the MCP door's arguments.

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const list = (text: string): string[] => (text === '' ? [] : text.split(',').map((s) => s.trim()));

function parseBounds(text: string, ctx: z.RefinementCtx<string>): z.output<typeof bound>[] {
  const out: z.output<typeof bound>[] = [];
  // Not trimmed at the end: a grade's unencoded + arrives as a trailing space.
  for (const item of text === '' ? [] : text.split(',').map((x) => x.trimStart())) {
    const [field = '', min = '', max = '', ...extra] = item.split(':');
    const number = (t: string): number | Grade | undefined | null => {
      if (t === '') return undefined;
      // A grade's + left unencoded in a URL arrives as a space: "B " is B+ (no grade ends in a space).
      const grade = t.endsWith(' ') ? `${t.trimEnd()}+` : t;
      if ((GRADES as string[]).includes(grade)) return grade as Grade;
      const n = Number(t);
      return NUMBER.test(t) && Number.isFinite(n) ? n : null;
    };
    const lo = number(min);
    const hi = number(max);
    if (extra.length > 0 || field === '' || lo === null || hi === null) {
      ctx.addIssue({ code: 'custom', message: 'has a bound that is not field:min:max (numbers, or grades for grade; either end may be empty)' });
      return [];
    }
    out.push({ field, ...(lo !== undefined ? { min: lo } : {}), ...(hi !== undefined ? { max: hi } : {}) });
  }
  if (out.length > MAX_FILTERS) ctx.addIssue({ code: 'custom', message: `has ${out.length} bounds (at most ${MAX_FILTERS})` });
  return out;
}

const restInput = z.strictObject({
  market: marketParam,
  sectors: z
    .string()
    .max(2000)
    .prefault('')
    .transform((t) => (t === '' ? [] : t.split('|').map((x) => x.trim())))
    .describe('Sector names separated by | (a name may hold commas: SEC industries such as "SERVICES-COMPUTER PROGRAMMING, DATA PROCESSING, ETC."), from stock-data://sectors, in English or Korean (Semiconductors|반도체); empty: every sector'),
  exchanges: z
    .string()
    .max(200)
    .prefault('')
    .transform(list)
    .describe(`Comma-separated exchanges (${EXCHANGE_EXAMPLES}); empty: every exchange`),
  bands: z
    .string()
    .regex(new RegExp(`^((${BAND_KEYS.join('|')})(,(${BAND_KEYS.join('|')}))*)?$`), { error: `must be comma-separated band keys from ${BAND_KEYS.join(', ')}` })
    .prefault('')
    .transform((t) => list(t) as BandKey[])
    .describe(`Comma-separated market-cap bands from ${BAND_KEYS.join(', ')}; empty: every stock`),
  filters: z
    .string()
    .max(2000)
    .prefault('')
    .transform(parseBounds)
    .describe(`Comma-separated bounds field:min:max, inclusive, either end may be empty: roe:10: (ROE >= 10 %), per::15 (PER <= 15), revenueYoy:-5:20, grade:B%2B: (grade B+ or better). Fields: ${BOUND_FIELD_LIST}`),
  sort: z
    .string()
    .regex(/^[A-Za-z0-9]{1,40}(:(asc|desc))?$/, { error: 'must be field or field:asc or field:desc' })
    .prefault(`${DEFAULT_SORT.field}:${DEFAULT_SORT.order}`)
    .transform((t) => {
      const [field = '', order = 'desc'] = t.split(':');
      return { field, order: order as 'asc' | 'desc' };
    })
    .describe('field or field:asc|desc (desc when no order): a numeric field or grade; stocks without a value come last'),
  fields: z
    .string()
    .max(1000)
    .optional()
    .transform((t) => (t === undefined ? undefined : list(t)))
    .describe(`Comma-separated fields each row carries; default ${DEFAULT_SCREEN_FIELDS.join(',')}`),
  limit: limitParam,
  offset: offsetParam,
  format: formatParam,
  asOf: asOfParam,
});

// Arguments the schemas cannot judge: field names against the fields, sectors and exchanges against the dataset.

function invalid(parameter: string, detail: string): ApiError {
  return new ApiError('invalid_parameter', `parameter '${parameter}' ${detail}`, { parameter });
}

const isText = (field: string): boolean => (SCREEN_TEXT_FIELDS as readonly string[]).includes(field);

/** A bound as the domain takes it (grades as ranks), or invalid_parameter naming what is wrong. */
function checkBound(b: z.output<typeof bound>): ScreenBound {
  const { field, min, max } = b;
  if (field === 'grade') {
    for (const end of [min, max]) {
      if (typeof end === 'number') throw invalid('filters', `bounds grade with the number ${end}; allowed: grades ${GRADES.join(', ')} (or bound score, 0..100)`);
    }
    const lo = min === undefined ? undefined : GRADE_RANK[min as Grade];
    const hi = max === undefined ? undefined : GRADE_RANK[max as Grade];
    if (lo !== undefined && hi !== undefined && lo > hi) throw invalid('filters', `has min ${String(min)} above max ${String(max)} for 'grade'; allowed: min <= max (D lowest, A+ highest)`);
    return { field, min: lo, max: hi };
  }
  if (!isScreenNumberField(field)) {
    if (isText(field)) throw invalid('filters', `bounds '${field}', a text field (filter it with market, sectors, bands or exchanges); allowed: ${BOUND_FIELD_LIST}`);
    throw invalid('filters', `names an unknown field '${field.slice(0, 40)}'; allowed: ${BOUND_FIELD_LIST}`);
  }
  for (const end of [min, max]) {
    if (typeof end === 'string') throw invalid('filters', `bounds '${field}' with the grade ${end}; allowed: numbers in its unit (grades bound the field grade)`);
  }
  const lo = min as number | undefined;
  const hi = max as number | undefined;
  if (lo !== undefined && hi !== undefined && lo > hi) throw invalid('filters', `has min ${lo} > max ${hi} for '${field}'; allowed: min <= max`);
  return { field, min: lo, max: hi };
}

function checkSectors(data: ServedDataset, markets: readonly string[], sectors: readonly string[]): void {
  if (sectors.length === 0) return;
  const known = [...new Set(data.sectors().filter((s) => markets.includes(s.market)).map((s) => s.sector))];
  const unknown = sectors.find((s) => !known.includes(s));
  if (unknown === undefined) return;
  const shown = known.length > 60 ? `${known.slice(0, 60).join(' | ')} | ... (all in stock-data://sectors)` : known.join(' | ');
  // Commas in a REST value are part of a name; a list of known names joined by commas meant `|`.
  const hint = unknown.includes(',') && unknown.split(',').every((x) => known.includes(x.trim())) ? ' (separate sectors with | on REST)' : '';
  throw invalid('sectors', `names '${unknown.slice(0, 60)}', no sector of ${markets.join(',')}${hint}; allowed: ${shown}`);
}

function checkExchanges(served: ServedScreen, markets: readonly Market[], exchanges: readonly string[]): void {
  if (exchanges.length === 0) return;
  const known = markets.flatMap((m) => served.exchanges[m]);
  const unknown = exchanges.find((e) => !known.includes(e));
  if (unknown !== undefined) throw invalid('exchanges', `names '${unknown.slice(0, 20)}', no exchange of ${markets.join(',')}; allowed: ${known.join(', ')}`);
}

// The answer.

const IDENTITY = SCREEN_TEXT_FIELDS;

const row = z
  .object({
    code: z.string(),
    market: z.enum(['KR', 'US']),
    name: z.string().describe('As the exchange lists it: Korean for KR companies, English for US ones'),
    nameEn: englishName,
    sector: z.string(),
    sectorKo: sectorKoField,
    band: bandKey.nullable().describe('Market-cap band; null without a price'),
    currency: z.enum(['KRW', 'USD']).describe('Currency of marketCap and currentPrice'),
  })
  .catchall(z.union([z.number(), z.string(), z.null()]))
  .describe('The identity, then the asked fields (null where the stock has no value)');

const output = z.object({
  market: z.string(),
  sectors: z.array(z.string()),
  bands: z.array(z.string()),
  exchanges: z.array(z.string()),
  filters: z.array(z.object({ field: z.string(), min: boundEnd.optional(), max: boundEnd.optional() })),
  sort: z.object({ field: z.string(), order: z.enum(['asc', 'desc']) }),
  fields: z.array(z.string()).describe('The fields of each row after its identity'),
  units: z.record(z.string(), z.string()).describe('Unit of each field: x, %, days, 0..100, score, grade, or currency (the row currency)'),
  count: z.number().int().describe('Rows in this answer'),
  totalCount: z.number().int().describe('Stocks that pass every filter (all pages)'),
  droppedForNull: z.record(z.string(), z.number().int()).describe('Per bounded field: stocks of the chosen markets, sectors, bands and exchanges without a value for it (they fail its bound)'),
  rows: z
    .union([z.array(row), z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))) })])
    .describe('In sort order; compact form (format=columns): columns named once, rows as arrays'),
  ...truncationFields,
  ...meta,
  asOf: asOfField,
});

const UNITS: Readonly<Record<string, string>> = Object.fromEntries(SCREEN_FIELD_DEFINITIONS.map((d) => [d.field, d.unit]));

export const screenStocks = defineTool({
  name: 'screen_stocks',
  title: 'Stock screener',
  description:
    'Screen every KR and US stock in one call: filter by market, sectors, market-cap bands, exchanges and bounds on any computed ' +
    'figure (the 17 percentile metrics such as per, roe, operatingMargin; v3Score, gapPct, score 0..100; marketCap; ' +
    'split-adjusted priceChange1m/3m/12m), sort by any of them, page with limit/offset. Values and units are those ' +
    'get_stock_snapshot, get_sector_percentile and get_stock_score give (roe min 10 = 10 %). Fields: stock-data://screen-fields.',
  input,
  restInput,
  output,
  path: '/screen',
  examples: [
    { summary: 'KOSDAQ semiconductors with ROE of 15 % or more and PER of 10 or less, highest ROE first', query: { market: 'KR', exchanges: 'KOSDAQ', sectors: 'Semiconductors', filters: 'roe:15:,per::10', sort: 'roe:desc' } },
    { summary: 'US large caps by free-cash-flow yield', query: { market: 'US', bands: 'mega,xlarge,large', sort: 'fcfYield:desc', fields: 'marketCap,fcfYield,per' } },
    { summary: 'Both markets: operating margin 10-40 %, revenue growing, sorted by 12-month price change', query: { filters: 'operatingMargin:10:40,revenueYoy:0:', sort: 'priceChange12m:desc', limit: '20' } },
    { summary: 'Grade A+ stocks (score >= 90), cheapest PER first, second page of 20', query: { filters: 'score:90:', sort: 'per:asc', limit: '20', offset: '20' } },
  ],
  cacheable: true,
  series: { field: 'rows', key: 'code', endParam: 'offset', keep: 'first' },
  async handler(args, ctx) {
    const markets = args.market === 'KR,US' ? (['KR', 'US'] as const) : ([args.market] as const);
    const bounds = args.filters.map(checkBound);
    const sortField = args.sort.field;
    if (!isScreenNumberField(sortField) && sortField !== 'grade') {
      throw invalid('sort', `names ${isText(sortField) ? `'${sortField}', a text field` : `an unknown field '${sortField.slice(0, 40)}'`}; allowed: ${NUMBER_FIELD_LIST}, grade`);
    }
    const fields = args.fields === undefined ? DEFAULT_SCREEN_FIELDS : [...new Set(args.fields)];
    for (const f of fields) {
      if (!(SCREEN_FIELDS as readonly string[]).includes(f)) {
        throw invalid('fields', `names ${(IDENTITY as readonly string[]).includes(f) ? `'${f}', which every row carries already` : `an unknown field '${f.slice(0, 40)}'`}; allowed: ${FIELD_LIST}`);
      }
    }
    // A sector may be named in Korean (반도체); the data keys on the English name.
    const sectors = [...new Set(args.sectors.map(sectorFromEither))];
    // As of a day (once the arguments are judged): the day's universe (its figures, bands and
    // cohorts) and its own screen index.
    const past = args.asOf === undefined ? null : await ctx.data.past.universe(args.asOf);
    const data = past?.data ?? ctx.data;
    checkSectors(data, markets, sectors);
    const served = await servedScreenOf(data);
    checkExchanges(served, markets, args.exchanges);
    const result = screen(served.index, {
      markets,
      sectors,
      bands: args.bands,
      exchanges: args.exchanges,
      bounds,
      sort: { field: sortField, order: args.sort.order },
      limit: args.limit,
      offset: args.offset,
    });
    const asked = fields as readonly ScreenField[];
    const columns = args.format === 'columns';
    const page = new ScreenRows(served.index, result.at, asked, columns ? 'arrays' : 'objects');
    // Typed as what they serialise to: nothing reads an answer but its serialisers.
    const rows = columns ? { columns: [...IDENTITY, ...asked], rows: page as unknown as ScreenCell[][] } : (page as unknown as z.output<typeof row>[]);
    const answer = {
      market: args.market,
      sectors,
      bands: args.bands,
      exchanges: args.exchanges,
      filters: args.filters.map((b) => ({ field: b.field, ...(b.min !== undefined ? { min: b.min } : {}), ...(b.max !== undefined ? { max: b.max } : {}) })),
      sort: { field: sortField, order: args.sort.order },
      fields: [...asked],
      units: Object.fromEntries(asked.map((f) => [f, UNITS[f] as string])),
      count: result.rows.length,
      totalCount: result.totalCount,
      droppedForNull: result.droppedForNull as Record<string, number>,
      rows,
      updatedAt: data.updatedAt,
      source: data.source,
    };
    return withAsOf(answer, past?.asOf);
  },
});
