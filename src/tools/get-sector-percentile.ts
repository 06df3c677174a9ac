import { z } from 'zod';
import { stockAnswer } from './answer.js';
import { codeParam } from './params.js';
import { sectorKo } from '../domain/sectors.js';
import { meta, percentileEntry, sectorKoField, stockIdentity } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

const output = z.object({
  ...stockIdentity,
  cohort: z.enum(['sector', 'market']),
  cohortName: z.string().describe('The sector name, or the market'),
  cohortNameKo: sectorKoField.describe('The sector\'s Korean name; null for the market cohort and for a sector without one'),
  cohortMembers: z.number().int().describe('Stocks in the cohort'),
  metrics: z.array(percentileEntry).length(17),
  ...meta,
  asOf: asOfField,
});

export const getSectorPercentile = defineTool({
  name: 'get_sector_percentile',
  title: 'Percentile of 17 metrics within a cohort',
  description:
    'For 17 financial metrics (PER, PBR, PSR, EV/EBIT, ROE, ROIC, operating margin, net margin, revenue YoY, operating ' +
    'income YoY, EPS YoY, net-debt ratio, interest coverage, current ratio, FCF yield, CF/NI, CCC): the raw value, its ' +
    'percentile 0..100 within the cohort (same sector, or the whole market; a higher value gives a higher percentile, ties ' +
    'share one) and how many cohort members have a value. Raw material, no verdict.',
  input: z.strictObject({
    code: codeParam,
    cohort: z.enum(['sector', 'market']).default('sector').describe('sector (same market and sector) or market'),
    asOf: asOfParam,
  }),
  output,
  path: '/stocks/{code}/percentile',
  cacheable: true,
  async handler(args, ctx) {
    // As of a day: the cohort as it was that day (the day's universe).
    const past = args.asOf === undefined ? null : await ctx.data.past.universe(args.asOf);
    const data = past?.data ?? ctx.data;
    const view = data.stock(args.code);
    const cohort = view.percentiles()[args.cohort];
    const answer = stockAnswer(view.security, data, {
      cohort: args.cohort,
      cohortName: cohort.name,
      cohortNameKo: args.cohort === 'sector' ? sectorKo(cohort.name) : null,
      cohortMembers: cohort.members,
      metrics: cohort.metrics,
    });
    return withAsOf(answer, past?.asOfStock(view));
  },
});
