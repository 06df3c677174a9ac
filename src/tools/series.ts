// Long series in two forms. REST answers object rows by default (`format=rows`); the compact
// form (`format=columns`, the MCP door's default) names the columns once and gives each row as
// an array in that order, which is about half the characters for a price history and what a
// model reads just as well: answers are sized for a model (./budget.ts).

import { z } from 'zod';

const FORMAT_DESCRIPTION = 'rows: one object per row; columns: column names once and each row as an array in that order (compact)';

/** REST's `format`: object rows unless asked. */
export const formatParam = z.enum(['rows', 'columns']).default('rows').describe(FORMAT_DESCRIPTION);

/**
 * MCP's `format`: the compact form unless asked (a model reads it as well in half the
 * characters). The tools' MCP input schema declares it, so tools/list says the default applied.
 */
export const mcpFormatParam = z.enum(['rows', 'columns']).default('columns').describe(FORMAT_DESCRIPTION);

export type SeriesFormat = z.infer<typeof formatParam>;

/** The compact form's schema for rows of `row`'s fields, in the order given. */
export function columnsOf<K extends string>(columns: readonly [K, ...K[]]) {
  return z
    .object({
      columns: z.array(z.enum(columns)).describe(`The columns of each row, in order: ${columns.join(', ')}`),
      rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))).describe('One array per row, values in the order of `columns`'),
    })
    .describe('Compact form (format=columns): columns named once, rows as arrays');
}

export interface Columns<K extends string = string> {
  columns: K[];
  rows: (string | number | null)[][];
}

/** Object rows as the compact form, columns in the order given. */
export function toColumns<T extends Record<K, string | number | null>, K extends string>(rows: readonly T[], columns: readonly K[]): Columns<K> {
  return { columns: [...columns], rows: rows.map((r) => columns.map((c) => r[c])) };
}

/** `rows` as they are for `format=rows`, compact for `format=columns`. */
export function inFormat<T extends Record<K, string | number | null>, K extends string>(format: SeriesFormat, rows: T[], columns: readonly K[]): T[] | Columns<K> {
  return format === 'columns' ? toColumns(rows, columns) : rows;
}

/** Present only on an MCP answer cut to the size budget (src/tools/budget.ts). */
export const truncationFields = {
  truncated: z.literal(true).optional().describe('Present (true) when the answer was cut to its latest rows to fit the size budget of an MCP tool result'),
  truncation: z
    .object({
      returned: z.number().int(),
      available: z.number().int(),
      reason: z.string(),
      rest: z.string().describe('How to ask for the rows left out'),
    })
    .optional(),
};
