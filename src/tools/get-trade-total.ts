import { z } from 'zod';
import { latestMonthOf, tradeTotals } from '../domain/trade.js';
import { monthParam } from './params.js';
import { monthWindow } from './month-window.js';
import { meta } from './shapes.js';
import { columnsOf, formatParam, inFormat, mcpFormatParam, truncationFields } from './series.js';
import { metaOf } from './answer.js';
import { defineTool } from './tool.js';

const tradeRow = z.object({
  month: z.string(),
  exports: z.number(),
  imports: z.number(),
  balance: z.number().describe('exports - imports'),
  exportsYoyPct: z.number().nullable(),
  importsYoyPct: z.number().nullable(),
});
const TRADE_COLUMNS = ['month', 'exports', 'imports', 'balance', 'exportsYoyPct', 'importsYoyPct'] as const;

const output = z.object({
  from: z.string(),
  to: z.string(),
  unit: z.literal('USD'),
  rows: z.union([z.array(tradeRow), columnsOf(TRADE_COLUMNS)]).describe('Ascending by month'),
  ...truncationFields,
  ...meta,
});

/** The MCP door's input; REST's takes `format` with its own default (object rows). */
const input = z.strictObject({ from: monthParam('first').optional(), to: monthParam('last').optional(), format: mcpFormatParam });

export const getTradeTotal = defineTool({
  name: 'get_trade_total',
  title: 'Korean trade totals',
  description:
    'Monthly Korean exports, imports and trade balance in US dollars (customs statistics; data from 1990-01), with year-over-year ' +
    'change. Without from/to, the latest 60 months.',
  input,
  restInput: input.extend({ format: formatParam }),
  output,
  path: '/exports/total',
  cacheable: true,
  series: { field: 'rows', key: 'month', endParam: 'to' },
  async handler(args, { data }) {
    const months = data.trade();
    const { from, to } = monthWindow(args, latestMonthOf(months));
    return { from, to, unit: 'USD' as const, rows: inFormat(args.format, tradeTotals(months, from, to), TRADE_COLUMNS), ...metaOf(data) };
  },
});
