import { z } from 'zod';
import { tradeTotal } from '../domain/trade.js';
import { monthParam } from './params.js';
import { resolveMonthWindow } from './window.js';
import { meta } from './shapes.js';
import { defineTool } from './tool.js';

const output = z.object({
  from: z.string(),
  to: z.string(),
  unit: z.literal('USD'),
  rows: z.array(
    z.object({
      month: z.string(),
      exports: z.number(),
      imports: z.number(),
      balance: z.number().describe('exports - imports'),
      exportsYoyPct: z.number().nullable(),
      importsYoyPct: z.number().nullable(),
    }),
  ),
  ...meta,
});

export const getTradeTotal = defineTool({
  name: 'get_trade_total',
  title: 'Korean trade totals',
  description:
    'Monthly Korean exports, imports and trade balance in US dollars (customs statistics; data from 1990-01), with year-over-year ' +
    'change. Without from/to, the latest 60 months.',
  input: z.strictObject({ from: monthParam('first').optional(), to: monthParam('last').optional() }),
  output,
  path: '/exports/total',
  cacheable: true,
  async handler(args, { data }) {
    const months = data.trade();
    const window = resolveMonthWindow(args, months.map((m) => m.month));
    return { ...window, unit: 'USD' as const, rows: tradeTotal(months, window), updatedAt: data.updatedAt, source: data.source };
  },
});
