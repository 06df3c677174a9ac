// One source's progress as health (./health.ts) and /readyz show it: the schema, the type the
// tools' context and the doors pass around, and the fields they show.

import { z } from 'zod';

const PHASES = ['waiting', 'listing', 'downloading', 'reading', 'calling', 'paced', 'done', 'failed'] as const;

/** One source's progress as health and /readyz show it (src/refresh/progress.ts keeps it). */
export const sourceProgress = z.object({
  source: z.string(),
  phase: z.enum(PHASES).describe('waiting, listing, downloading, reading, calling, paced (out of the day\'s allowance), done or failed'),
  unit: z.string().describe('What done and total count: files, members, companies, days, calls'),
  done: z.number().int(),
  total: z.number().int().nullable().describe('null while not known yet'),
  bytes: z.number().int().describe('Bytes read so far in this phase'),
  callsToday: z.number().int().describe('Calls made today (Asia/Seoul day) against the source\'s daily allowance'),
  dailyAllowance: z.number().int().nullable().describe('The source\'s documented calls a day; null where none is documented'),
  etaSeconds: z.number().int().nullable().describe('Seconds to done; null while unknown'),
  etaAt: z.string().nullable().describe('When it is expected to be done (ISO 8601, +09:00)'),
  nextTryAt: z.string().nullable().describe('When a paced or failed source tries next (ISO 8601, +09:00)'),
  note: z.string().nullable().describe('One short line: what it is doing or why it waits'),
});
export type ProgressEntry = z.infer<typeof sourceProgress>;

/** The fields health and /readyz show of a board entry (the board keeps a few more). */
export function progressEntry(p: ProgressEntry): ProgressEntry {
  return {
    source: p.source, phase: p.phase, unit: p.unit, done: p.done, total: p.total, bytes: p.bytes, callsToday: p.callsToday,
    dailyAllowance: p.dailyAllowance, etaSeconds: p.etaSeconds, etaAt: p.etaAt, nextTryAt: p.nextTryAt, note: p.note,
  };
}
