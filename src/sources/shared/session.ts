// Which sessions an adapter may take: only closed ones (a market's last price bar is its last
// session closed in its own time zone, Asia/Seoul or America/New_York). The rule is src/domain/session.ts; the
// holidays are the project's exchange calendars (src/sources/demo/calendar.ts).

import type { Market } from '../../domain/model.js';
import { lastClosedSession } from '../../domain/session.js';
import { isTradingDay } from '../demo/calendar.js';
import type { SourceContext } from '../source.js';

/**
 * `to`, brought back to the last session of `market` closed at `ctx.now` when that is earlier.
 * Without `ctx.now` (a caller that passes only `asOf`), `to` as the adapter worked it out.
 */
export function closedSessionsThrough(market: Market, ctx: Pick<SourceContext, 'now'>, to: string): string {
  if (ctx.now === undefined) return to;
  const last = lastClosedSession(market, ctx.now, isTradingDay);
  return last < to ? last : to;
}
