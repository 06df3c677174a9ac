import { ApiError } from './errors.js';

/** Default month window: the latest 60 months with data. */
export const DEFAULT_WINDOW_MONTHS = 60;

function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const idx = y * 12 + (m - 1) + n;
  return `${Math.floor(idx / 12)}-${String((idx % 12) + 1).padStart(2, '0')}`;
}

/**
 * Resolves from/to against the months that exist. Missing ends default to the latest month and
 * 59 months before `to`; a month after the latest one, or from after to, is an error: the
 * caller is told what exists rather than silently given something else.
 */
export function resolveMonthWindow(args: { from?: string; to?: string }, months: readonly string[]): { from: string; to: string } {
  const first = months[0];
  const latest = months[months.length - 1];
  if (first === undefined || latest === undefined) throw new ApiError('data_unavailable', 'no trade data has been loaded yet');
  for (const name of ['from', 'to'] as const) {
    const v = args[name];
    if (v !== undefined && v > latest) {
      throw new ApiError('invalid_parameter', `parameter '${name}' (${v}) is after the latest month with data, ${latest}`, { parameter: name });
    }
  }
  const to = args.to ?? latest;
  let from = args.from ?? addMonths(to, -(DEFAULT_WINDOW_MONTHS - 1));
  if (args.from === undefined && from < first) from = first;
  if (from > to) throw new ApiError('invalid_parameter', `parameter 'from' (${from}) is after 'to' (${to}); allowed: from <= to`, { parameter: 'from' });
  return { from, to };
}
