import { z } from 'zod';
import { stockAnswer } from './answer.js';
import { ApiError } from '../kernel/errors.js';
import { codeParam, dateParam } from './params.js';
import { meta, stockIdentity } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

const nullableNumber = z.number().nullable();
const output = z.object({
  ...stockIdentity,
  type: z.enum(['per', 'pbr', 'psr']),
  from: z.string(),
  to: z.string(),
  daysUsed: z.number().int(),
  daysExcluded: z.number().int().describe('Days whose denominator (TTM earnings, equity or TTM revenue) was missing or not positive'),
  p5: nullableNumber,
  median: nullableNumber,
  p95: nullableNumber,
  min: nullableNumber,
  max: nullableNumber,
  current: z
    .object({
      date: z.string(),
      value: nullableNumber,
      percentile: z.number().min(0).max(100).nullable().describe('Position of the current value within the window, 0..100'),
      reason: z.string().optional(),
    })
    .nullable(),
  years: z.array(z.object({ year: z.number().int(), days: z.number().int(), min: z.number(), median: z.number(), max: z.number() })),
  reason: z.string().optional(),
  ...meta,
  asOf: asOfField,
});

export const getValuationBand = defineTool({
  name: 'get_valuation_band',
  title: 'Valuation band',
  description:
    'Where the stock PER, PBR or PSR stands against its own history since a start date: 5th percentile, median, 95th ' +
    'percentile, minimum, maximum, a per-year summary and the current value with its percentile position. Computed from daily ' +
    'closes and actually reported point-in-time TTM figures (not consensus estimates). Raw material, no verdict.',
  input: z.strictObject({
    code: codeParam,
    type: z.enum(['per', 'pbr', 'psr']).default('per'),
    from: dateParam('start').default('2020-01-01'),
    asOf: asOfParam,
  }),
  output,
  path: '/stocks/{code}/valuation-band',
  cacheable: true,
  async handler(args, { data }) {
    // As of a day: the series and the current position end there (no universe needed).
    const day = args.asOf === undefined ? null : await data.past.resolve(args.asOf);
    const to = day?.date ?? data.asOf;
    if (args.from > to) {
      throw new ApiError('invalid_parameter', `parameter 'from' (${args.from}) is after the ${day === null ? 'latest data date' : 'as-of date'} ${to}`, {
        parameter: 'from',
      });
    }
    const view = day === null || day.served ? data.stock(args.code) : await data.past.view(args.code, day.date);
    const band = await data.valuationBand(view, args.type, args.from, to);
    const answer = stockAnswer(view.security, data, band);
    if (day === null) return answer;
    const use = { date: day.date, lastSession: band.current?.date ?? null, lastDisclosure: await data.past.ttmDisclosedBy(view, day.date), ...(day.note === undefined ? {} : { note: day.note }) };
    return withAsOf(answer, use);
  },
});
