import { resolveMonthWindow } from '../domain/trade.js';
import { ApiError } from '../kernel/errors.js';

/** The domain's month window, with its refusal turned into the door-independent ApiError. */
export function monthWindow(args: { from?: string; to?: string }, latestMonth: string | null): { from: string; to: string } {
  const window = resolveMonthWindow(args, latestMonth);
  if (window.error === undefined) return window;
  const { error } = window;
  if (error.kind === 'data_unavailable') throw new ApiError('data_unavailable', error.message);
  throw new ApiError('invalid_parameter', `parameter '${error.parameter}': ${error.message}`, { parameter: error.parameter });
}
