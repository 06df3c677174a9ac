// The whole-market walk of the KR price adapters that read every stock of a date in one call
// or a few (FSC, the KRX Open API): a backfill asks every date of its range, newest first,
// without moving the cursor; otherwise the dates after the cursor, then back through the
// history window (date-walk.ts), each date's rows gathered in one MarketRows. A day's
// allowance spent stops the run with what it has (phase `paced`), never fails it.

import { AllowanceSpent, type CallMeter, CallPlan } from '../meter.js';
import type { SourceContext } from '../source.js';
import { planWalk, readWalkCursor, walkDates, writeWalkCursor, type WalkCursor } from './date-walk.js';
import { MarketRows } from './market-rows.js';
import { weekdaysBetween } from './parse.js';

export interface MarketWalk {
  /** The adapter's name, in its log lines. */
  name: string;
  meter: CallMeter;
  /** The spacing of calls (the limiter's), for the progress board's ETA. */
  perCallMs: number;
  /** Calls one date takes. */
  callsPerDate: number;
  /** The last closed session to ask. */
  to: string;
  /** The oldest date of the history window (already no earlier than the provider's first). */
  historyFrom: string;
  /** The provider's first date: a backfill's range starts no earlier. */
  firstDate?: string;
  maxDaysPerRun: number;
  emptyDaysToStop: number;
  /** Every row of one date, pushed into `take`; the number of rows. */
  date: (date: string, take: MarketRows['take']) => Promise<number>;
  /** After the walk of a run whose newest date is new (KRX Open API: the listings of that date). */
  afterWalk?: (next: WalkCursor, prior: WalkCursor) => Promise<void>;
}

/** The rows a run gathered and the cursor it hands back. */
export async function walkMarket(ctx: SourceContext, walk: MarketWalk): Promise<{ rows: MarketRows; cursor: string }> {
  const rows = new MarketRows();
  const { perCallMs, meter } = walk;
  const callsPerUnit = walk.callsPerDate;
  if (ctx.range) {
    const from = walk.firstDate !== undefined && ctx.range.from < walk.firstDate ? walk.firstDate : ctx.range.from;
    const dates = weekdaysBetween(from, walk.to).reverse();
    const plan = new CallPlan(ctx.progress, meter, { unit: 'days', total: dates.length, callsPerUnit, perCallMs });
    plan.start('backfill by date');
    try {
      for (const d of dates) {
        await walk.date(d, rows.take);
        plan.step();
      }
      plan.finish();
    } catch (err) {
      if (!(err instanceof AllowanceSpent)) throw err;
      plan.paced();
    }
    ctx.log.info(`${walk.name}: backfill`, { bars: rows.bars.length, days: plan.unitsDone, from: ctx.range.from, to: walk.to });
    return { rows, cursor: ctx.cursor ?? writeWalkCursor({ latest: null, back: null, complete: false }) };
  }

  let cursor = readWalkCursor(ctx.cursor);
  if (cursor === null) {
    ctx.log.warn(`${walk.name}: unreadable cursor, starting afresh`);
    cursor = { latest: null, back: null, complete: false };
  }
  const { historyFrom } = walk;
  const planned = planWalk(cursor, { to: walk.to, historyFrom, maxDays: walk.maxDaysPerRun });
  const next: WalkCursor = { ...cursor };
  const plan = new CallPlan(ctx.progress, meter, { unit: 'days', total: planned.total, callsPerUnit, perCallMs, doneBefore: planned.doneBefore });
  plan.start(cursor.complete ? undefined : `prices and listed shares by date, back to ${historyFrom}`);
  try {
    const ended = await walkDates(planned, next, {
      historyFrom,
      emptyDaysToStop: walk.emptyDaysToStop,
      rows: (d) => walk.date(d, rows.take),
      step: () => plan.step(),
    });
    if (ended) ctx.log.info(`${walk.name}: ${ended}`);
    await walk.afterWalk?.(next, cursor);
    if (next.complete) plan.finish();
    else plan.rest(`the history walk continues next run from ${next.back ?? walk.to}`);
  } catch (err) {
    if (!(err instanceof AllowanceSpent)) throw err;
    plan.paced();
    ctx.log.warn(`${walk.name}: the day's allowance is used; the walk resumes after the renewal`, { callsToday: err.callsToday, nextTryAt: err.nextTryAt.toISOString() });
  }
  ctx.log.info(`${walk.name}: ingested`, { bars: rows.bars.length, latest: next.latest, back: next.back, complete: next.complete });
  return { rows, cursor: writeWalkCursor(next) };
}
