// What a source reports of its own progress while it loads: its phase, how many of how many
// units it has done, the bytes it has read, and the calls it has made against the day's
// allowance. Sources report; the refresh keeps the board (refresh/progress.ts) that the CLI,
// /readyz, health and the dashboard read. Plain data, no clock: times are set by the board.

export type ProgressPhase =
  /** Nothing to do yet, or waiting for its turn. */
  | 'waiting'
  /** Reading an index: DART's bulk list page, SEC's ticker list, the filing list. */
  | 'listing'
  /** Fetching a bulk file. */
  | 'downloading'
  /** Reading files or members into records. */
  | 'reading'
  /** Making paced API calls (one company, one day at a time). */
  | 'calling'
  /** Out of the day's allowance: resumes at `nextTryAt`. */
  | 'paced'
  | 'done'
  | 'failed';

/** What a source says of itself; every field optional, merged into its board entry. */
export interface ProgressPatch {
  phase?: ProgressPhase;
  /** What `done` and `total` count: `files`, `members`, `companies`, `days`, `calls`. */
  unit?: string;
  done?: number;
  /** null when not known yet. */
  total?: number | null;
  /** Bytes read so far in this phase (downloaded or inflated). */
  bytes?: number;
  /** Calls made so far in the current Asia/Seoul day against `dailyAllowance`. */
  callsToday?: number;
  /** The source's documented calls a day (OpenDART 20,000); null where none is documented. */
  dailyAllowance?: number | null;
  /**
   * The source's own estimate of the seconds to done when it knows better than the rate seen so
   * far (a paced source: calls left / allowed rate, days of allowance); null to let the board
   * estimate from the rate.
   */
  etaSeconds?: number | null;
  /** When a paced or failed source tries next. */
  nextTryAt?: Date | null;
  /** One short line for people: what it is doing or why it waits. Never a key or a URL with one. */
  note?: string | null;
}

/**
 * A source's entry on the board (refresh/progress.ts): its patches merged, with the times the
 * board sets. Plain data, so the dashboard (web/) reads /readyz with this same type.
 */
export interface SourceProgress {
  source: string;
  phase: ProgressPhase;
  unit: string;
  done: number;
  total: number | null;
  bytes: number;
  callsToday: number;
  dailyAllowance: number | null;
  /** When the current phase started (+09:00). */
  startedAt: string;
  updatedAt: string;
  /** Seconds to done: the source's own estimate, else from the rate seen in this phase; null when unknown. */
  etaSeconds: number | null;
  /** When it is expected to be done (+09:00), from `etaSeconds`. */
  etaAt: string | null;
  nextTryAt: string | null;
  note: string | null;
}

/** Where a source sends its progress. Cheap to call often (the board throttles what it keeps). */
export type ProgressSink = (patch: ProgressPatch) => void;

export const ignoreProgress: ProgressSink = () => undefined;
