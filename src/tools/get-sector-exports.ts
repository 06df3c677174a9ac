import { z } from 'zod';
import { exportSectorKo } from '../domain/sectors.js';
import { latestMonthOf, sectorExports } from '../domain/trade.js';
import { monthParam } from './params.js';
import { monthWindow } from './month-window.js';
import { meta, sectorKoField } from './shapes.js';
import { columnsOf, formatParam, inFormat, mcpFormatParam, truncationFields } from './series.js';
import { metaOf } from './answer.js';
import { defineTool } from './tool.js';

const SECTOR_COLUMNS = ['month', 'exports', 'yoyPct'] as const;

const output = z.object({
  from: z.string(),
  to: z.string(),
  top: z.number().int(),
  unit: z.literal('USD'),
  basis: z.string().describe('How sectors are ranked'),
  sectors: z.array(
    z.object({
      rank: z.number().int(),
      sector: z.string(),
      sectorKo: sectorKoField.describe('The sector in Korean (선박 for Shipbuilding), as Korea\'s trade statistics name it'),
      cumulative24m: z.number().describe('Exports over the 24 months ending at `to`'),
      series: z
        .union([z.array(z.object({ month: z.string(), exports: z.number(), yoyPct: z.number().nullable() })), columnsOf(SECTOR_COLUMNS)])
        .describe('Ascending by month'),
    }),
  ),
  ...truncationFields,
  ...meta,
});

/** The MCP door's input; REST's takes `format` with its own default (object rows). */
const input = z.strictObject({
  from: monthParam('first').optional(),
  to: monthParam('last').optional(),
  top: z.number().int().min(1).max(50).default(10).describe('number of sectors'),
  format: mcpFormatParam,
});

export const getSectorExports = defineTool({
  name: 'get_sector_exports',
  title: 'Korean exports by sector',
  description:
    'Monthly Korean exports of the top N sectors (e.g. semiconductors, automobiles, shipbuilding, secondary batteries), ranked ' +
    'by exports over the 24 months ending at the window end, with year-over-year percent change. Without from/to, the latest 60 months.',
  input,
  restInput: input.extend({ format: formatParam }),
  output,
  path: '/exports/sectors',
  cacheable: true,
  series: { field: 'series', within: 'sectors', key: 'month', endParam: 'to' },
  async handler(args, { data }) {
    const rows = data.sectorExports();
    const { from, to } = monthWindow(args, latestMonthOf(rows));
    return {
      from,
      to,
      top: args.top,
      unit: 'USD' as const,
      basis: `exports summed over the 24 months ending ${to}`,
      sectors: sectorExports(rows, from, to, args.top).map((s) => ({ rank: s.rank, sector: s.sector, sectorKo: exportSectorKo(s.sector), cumulative24m: s.cumulative24m, series: inFormat(args.format, s.series, SECTOR_COLUMNS) })),
      ...metaOf(data),
    };
  },
});
