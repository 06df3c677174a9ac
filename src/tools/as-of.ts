// The `asOf` argument of the stock tools and the block an answer given as of a day carries
// (src/serving/as-of.ts serves the day). Without `asOf` an answer has no such block: it is
// today's, byte for byte.

import { z } from 'zod';
import type { AsOfUse } from '../serving/dataset.js';
import { dateParam } from './params.js';

export const asOfParam = dateParam('as-of')
  .optional()
  .describe(
    'YYYY-MM-DD: answer as the data stood at that day\'s close (a filing counts from its disclosure date, a price from its session; ' +
      'a company\'s name, sector and exchange are those it had that day); ' +
      'absent: today. Earlier than the first day with both prices and a TTM is refused (the error names that day; health: asOf.earliest); ' +
      'a day after the latest data day is answered as of that day (the answer\'s asOf.note says so)',
  );

export const asOfField = z
  .object({
    date: z.string().describe('The day answered for (YYYY-MM-DD)'),
    lastSession: z.string().nullable().describe('The last trading day whose close the answer used; null when it used none'),
    lastDisclosure: z.string().nullable().describe('The disclosure date of the latest filing the answer used; null when it used none'),
    note: z.string().optional().describe('Present when the day asked for is after the latest data day, which answers instead'),
  })
  .optional()
  .describe('Present only when asOf was given: the day the answer is as of, and the last session and disclosure it used');

/** `answer` with the `asOf` block last when given, else `answer` itself. */
export function withAsOf<A extends object>(answer: A, use: AsOfUse | undefined): A & { asOf?: AsOfUse } {
  return use === undefined ? answer : { ...answer, asOf: use };
}
