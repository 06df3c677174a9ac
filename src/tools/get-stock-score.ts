import { z } from 'zod';
import { stockAnswer } from './answer.js';
import { gradeOf } from '../domain/score.js';
import { codeParam } from './params.js';
import type { ServedDataset, StockView } from '../serving/dataset.js';
import { bandKey, meta, stockIdentity } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

const output = z.object({
  ...stockIdentity,
  score: z.number().min(0).max(100).nullable().describe('Percentile 0..100 of the V3 score within the stock market'),
  grade: z.enum(['A+', 'A', 'B+', 'B', 'C+', 'C', 'D']).nullable().describe('A+ >= 90, A >= 80, B+ >= 70, B >= 60, C+ >= 50, C >= 40, D below'),
  v3Score: z.number().nullable(),
  currentPrice: z.number().nullable(),
  targetPrice: z.number().nullable().describe('Formula-based: currentPrice x (1 + gapPct / 100)'),
  gapPct: z.number().nullable().describe('Upside versus the current price, percent'),
  marketCap: z.number().nullable(),
  band: bandKey.nullable(),
  priceDate: z.string().nullable(),
  referenceQuarter: z.string().nullable(),
  disclosedOn: z.string().nullable(),
  inputs: z
    .object({
      yoy: z.number(),
      ttmNiEok: z.number(),
      supplyPct: z.number(),
      momentumPct: z.number(),
      usdKrw: z.number().nullable().describe('Won per dollar used to convert a US stock net income'),
    })
    .nullable(),
  supply: z
    .object({
      days: z.number().int().describe('Trading days supplyPct is over: 20, fewer for a short history'),
      flowDays: z.number().int().nullable().describe('KR: days of the window with an investor-flow row (the others count 0 net); null for US, whose supplyPct comes from its prices'),
      sources: z.array(z.string()).describe('KR: the sources of those flow rows (e.g. kis, krx, demo), so a score fed by one flows source can be told from another; empty for US'),
    })
    .nullable()
    .describe('What fed supplyPct'),
  cohortSize: z.number().int().describe('Stocks of the same market with a V3 score'),
  reason: z.string().optional().describe('Why there is no score'),
  ...meta,
  asOf: asOfField,
});

export const getStockScore = defineTool({
  name: 'get_stock_score',
  title: 'Stock score',
  description:
    'Score 0..100 (the percentile of the V3 formula score within the stock market), grade A+..D, the formula-based target ' +
    'price and the gap (upside percent) versus the current price, for one KR or US stock.',
  input: z.strictObject({ code: codeParam, asOf: asOfParam }),
  output,
  path: '/stocks/{code}/score',
  cacheable: true,
  async handler(args, ctx) {
    const past = args.asOf === undefined ? null : await ctx.data.past.universe(args.asOf);
    const data = past?.data ?? ctx.data;
    const view = data.stock(args.code);
    return withAsOf(scoreAnswer(view, data), past?.asOfStock(view));
  },
});

/** The score answer of `view`, from `data` (today's dataset, or a past day's). */
function scoreAnswer(view: StockView, data: ServedDataset) {
  const { security: s, price, v3 } = view;
  const base = stockAnswer(s, data, {
    currentPrice: price?.close ?? null,
    marketCap: price?.marketCap ?? null,
    band: view.band,
    priceDate: price?.date ?? null,
    cohortSize: view.scoreCohortSize,
  });
  if (!v3.ok || view.scorePercentile === null) {
    return {
      ...base,
      score: null,
      grade: null,
      v3Score: null,
      targetPrice: null,
      gapPct: null,
      referenceQuarter: null,
      disclosedOn: null,
      inputs: null,
      supply: null,
      reason: v3.ok ? 'no score percentile' : v3.reason,
    };
  }
  return {
    ...base,
    score: view.scorePercentile,
    grade: gradeOf(view.scorePercentile),
    v3Score: v3.result.score,
    targetPrice: v3.targetPrice,
    gapPct: v3.result.gapPct,
    referenceQuarter: v3.referenceQuarter,
    disclosedOn: v3.disclosedOn,
    inputs: {
      yoy: v3.inputs.yoy,
      ttmNiEok: v3.inputs.ttmNiEok,
      supplyPct: v3.inputs.supplyPct,
      momentumPct: v3.inputs.momentum * 100,
      usdKrw: v3.inputs.usdKrw,
    },
    supply: { days: v3.supply.days, flowDays: v3.supply.flowDays, sources: [...v3.supply.sources] },
  };
}

