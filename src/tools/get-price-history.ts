import { z } from 'zod';
import { stockAnswer } from './answer.js';
import { ApiError } from '../kernel/errors.js';
import { codeParam, dateParam } from './params.js';
import { meta, priceBar, stockIdentity } from './shapes.js';
import { dateOfDay, type DayBars } from '../domain/series.js';
import type { PriceBar } from '../domain/results.js';
import { ColumnRows, type RowColumn } from '../domain/column-rows.js';
import { columnsOf, formatParam, inFormat, mcpFormatParam, truncationFields, type Columns, type SeriesFormat } from './series.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

export const BAR_COLUMNS = ['date', 'open', 'high', 'low', 'close', 'volume', 'tradedValue'] as const;

const output = z.object({
  ...stockIdentity,
  interval: z.enum(['day', 'week', 'month']),
  from: z.string().nullable(),
  to: z.string().nullable(),
  count: z.number().int(),
  adjusted: z
    .boolean()
    .describe(
      'Whether the bars are split-adjusted: every bar before a split restated in the shares that trade after it (prices divided by the split factor, volume multiplied; traded value as traded). ' +
        'KR: as asked; US: always true (the feed delivers adjusted bars)',
    ),
  adjustedBy: z
    .enum(['service', 'source'])
    .nullable()
    .describe(
      "'service': this service divided out the split events in `splits` (KR, found in the stock's own closes and listed shares); " +
        "'source': the price feed adjusts US bars before they are stored (Polygon adjusted=true), so adjusted=false cannot undo it; null: not adjusted (KR with adjusted=false)",
    ),
  splits: z
    .array(z.object({ date: z.string().describe('First trading day in the new shares'), factor: z.number().describe('n for an n-for-1 split, 1/n for a 1-for-n consolidation') }))
    .describe(
      "Split events found in the stock's bars that the answer reflects: adjusted, those divided out (dated after its first trading day, through the as-of date); " +
        'as traded, those dated within the bars, each a jump in them',
    ),
  bars: z
    .union([z.array(priceBar), columnsOf(BAR_COLUMNS)])
    .describe('Ascending by date; week = ISO week, month = calendar month, dated by the last trading day'),
  ...truncationFields,
  ...meta,
  asOf: asOfField,
});

/**
 * Day bars in the answer's format, written from the series' columns (ColumnRows): serialised,
 * exactly what `inFormat` gives for the same bars as objects (test/serving/history.test.ts).
 */
export function dayRowsInFormat(format: SeriesFormat, { series, start, end }: DayBars): PriceBar[] | Columns<(typeof BAR_COLUMNS)[number]> {
  const numbers = (values: Float64Array): RowColumn => ({ kind: 'number', values });
  const columns: RowColumn[] = [
    { kind: 'date', days: series.days },
    numbers(series.open),
    numbers(series.high),
    numbers(series.low),
    numbers(series.close),
    numbers(series.volume),
    numbers(series.tradedValue),
  ];
  const rows = (shape: 'objects' | 'arrays') => new ColumnRows(BAR_COLUMNS, columns, start, end, shape, dateOfDay);
  // Typed as what they serialise to: nothing reads an answer but its serialisers.
  if (format === 'columns') return { columns: [...BAR_COLUMNS], rows: rows('arrays') as unknown as (string | number | null)[][] };
  return rows('objects') as unknown as PriceBar[];
}

/** The MCP door's input; REST's takes `format` with its own default (object rows). */
const input = z.strictObject({
  code: codeParam,
  interval: z.enum(['day', 'week', 'month']).default('day'),
  from: dateParam('first').optional(),
  to: dateParam('last').optional(),
  limit: z.number().int().min(1).max(2600).default(260).describe('latest N bars within the window'),
  adjusted: z
    .boolean()
    .default(true)
    .describe('true or false: split-adjusted bars (default) or KR bars as traded; US bars are adjusted by the feed either way'),
  format: mcpFormatParam,
  asOf: asOfParam,
});

export const getPriceHistory = defineTool({
  name: 'get_price_history',
  title: 'Price history',
  description:
    'OHLCV bars (open, high, low, close, volume, traded value) of one stock by day, ISO week or calendar month, each dated ' +
    'by its last trading day. from/to bound the window; limit keeps the latest N bars in it (default 260, about a year of days). ' +
    'Split-adjusted by default (adjusted=false: KR bars as traded); the answer says which splits it applied.',
  input,
  restInput: input.extend({ format: formatParam }),
  output,
  path: '/stocks/{code}/prices',
  cacheable: true,
  series: { field: 'bars', key: 'date', endParam: 'to' },
  async handler(args, { data }) {
    if (args.from !== undefined && args.to !== undefined && args.from > args.to) {
      throw new ApiError('invalid_parameter', `parameter 'from' (${args.from}) is after 'to' (${args.to}); allowed: from <= to`, {
        parameter: 'from',
      });
    }
    // As of a day: the bars through that day, adjusted for the splits known by then (no universe needed).
    const day = args.asOf === undefined ? null : await data.past.resolve(args.asOf);
    const view = day === null || day.served ? data.stock(args.code) : await data.past.view(args.code, day.date);
    const { bars, splits } = await data.priceBars(view, { interval: args.interval, from: args.from, to: args.to, limit: args.limit }, args.adjusted, day?.date);
    const count = Array.isArray(bars) ? bars.length : bars.end - bars.start;
    const bySource = view.security.market === 'US';
    const answer = stockAnswer(view.security, data, {
      interval: args.interval,
      from: args.from ?? null,
      to: args.to ?? null,
      count,
      adjusted: bySource || args.adjusted,
      adjustedBy: bySource ? ('source' as const) : args.adjusted ? ('service' as const) : null,
      splits,
      bars: Array.isArray(bars) ? inFormat(args.format, bars, BAR_COLUMNS) : dayRowsInFormat(args.format, bars),
    });
    if (day === null) return answer;
    const last = Array.isArray(bars) ? (bars.at(-1)?.date ?? null) : count > 0 ? dateOfDay(bars.series.days[bars.end - 1] as number) : null;
    return withAsOf(answer, { date: day.date, lastSession: last, lastDisclosure: null, ...(day.note === undefined ? {} : { note: day.note }) });
  },
});
