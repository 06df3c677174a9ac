// A walk over a price history one date per call (FSC and the KRX Open API by date, Polygon grouped
// daily): the newest sessions first, so the latest price is served after the first call, then
// back through the history window a bounded number of dates a run, resuming where the last run
// stopped. The cursor keeps both ends: `date`, the newest date that had rows (the next run
// starts the day after it, so a day the provider had not yet published is asked again), and
// `back`, the oldest date walked (the history continues the weekday before it).

import { addDays, jsonObject, weekdaysBetween } from './parse.js';

export interface WalkCursor {
  /** The newest date that had rows; null before any. */
  latest: string | null;
  /** The oldest date walked; null before any. */
  back: string | null;
  /** The history window is walked to its start (or to where the provider's history ends). */
  complete: boolean;
}

const ISO = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The walk's cursor: JSON `{"date","back","complete"}`. A bare date (the cursor these adapters
 * wrote before the history walk) reads as that newest date with the history complete, so such
 * an install keeps its incremental runs; `backfill` fills older dates. Null when unreadable.
 */
export function readWalkCursor(raw: string | null): WalkCursor | null {
  if (raw === null) return { latest: null, back: null, complete: false };
  if (ISO.test(raw.trim())) return { latest: raw.trim(), back: null, complete: true };
  const body = jsonObject(raw);
  if (body === null) return null;
  const { date, back, complete } = body;
  const day = (v: unknown): string | null => (typeof v === 'string' && ISO.test(v) ? v : null);
  return { latest: day(date), back: day(back), complete: complete === true };
}

export function writeWalkCursor(c: WalkCursor): string {
  return JSON.stringify({ date: c.latest, back: c.back, complete: c.complete });
}

export interface WalkPlan {
  /** New dates after the newest, oldest first. */
  forward: string[];
  /** History dates, newest first (the first run starts at `to`). */
  backward: string[];
  /** Weekdays of the whole window [historyFrom, to]. */
  total: number;
  /** Weekdays of the window already walked before this run. */
  doneBefore: number;
}

/**
 * This run's dates: the new ones first, then history back to `historyFrom`, `maxDays` in all.
 * Weekdays: a holiday costs one call that answers no rows.
 */
export function planWalk(c: WalkCursor, o: { to: string; historyFrom: string; maxDays: number }): WalkPlan {
  const fresh = c.latest === null && c.back === null;
  const forwardFrom = c.latest !== null ? addDays(c.latest, 1) : c.back;
  const forwardAll = fresh || forwardFrom === null ? [] : weekdaysBetween(forwardFrom, o.to);
  const backStart = fresh ? o.to : addDays(c.back ?? (c.latest as string), -1);
  const backwardAll = c.complete ? [] : weekdaysBetween(o.historyFrom, backStart).reverse();
  const total = weekdaysBetween(o.historyFrom, o.to).length;
  const left = forwardAll.length + backwardAll.length;
  const forward = forwardAll.slice(0, o.maxDays);
  const backward = backwardAll.slice(0, Math.max(0, o.maxDays - forward.length));
  return { forward, backward, total: Math.max(total, left), doneBefore: Math.max(0, total - left) };
}

/**
 * Walks a plan's dates, `rows(date)` fetching one date and returning its row count, and keeps
 * `next` (mutated as it goes, so a caller that stops on an error keeps what was walked): the
 * newest date with rows, the oldest walked, and `complete` when the window's start is reached or,
 * walking back after rows were seen, `emptyDaysToStop` weekdays in a row have none (the start of
 * the provider's history). Returns why a backward walk ended early, or null.
 */
export async function walkDates(
  walk: WalkPlan,
  next: WalkCursor,
  o: { historyFrom: string; emptyDaysToStop: number; rows: (date: string) => Promise<number>; step: () => void },
): Promise<string | null> {
  const seen = (d: string): void => {
    if (next.latest === null || d > next.latest) next.latest = d;
  };
  for (const d of walk.forward) {
    if ((await o.rows(d)) > 0) seen(d);
    o.step();
  }
  let empty = 0;
  let ended: string | null = null;
  for (const d of walk.backward) {
    const n = await o.rows(d);
    next.back = d;
    o.step();
    if (n > 0) {
      seen(d);
      empty = 0;
    } else if (next.latest !== null && ++empty >= o.emptyDaysToStop) {
      next.complete = true;
      ended = `no rows for ${empty} weekdays in a row down to ${d}: the provider's history starts after them`;
      break;
    }
  }
  if (next.back !== null && weekdaysBetween(o.historyFrom, addDays(next.back, -1)).length === 0) next.complete = true;
  return ended;
}
