// The call meter: how many calls a source has made in the current Asia/Seoul day against the
// allowance its provider documents (OpenDART 20,000 a day, data.go.kr development keys 10,000 a
// service), and the paced plan of a walk over many calls (companies, days) that reports its
// progress with an ETA at the source's request spacing. HttpClient counts every request through
// `take()`; a source out of its day's allowance stops with what it has, phase `paced`, and
// tries again at the next Seoul midnight (the day boundary of these providers' quotas).

import { nextSeoulMidnight, seoulDay, type Clock } from '../kernel/clock.js';
import type { ProgressSink } from './progress.js';
import { jsonObject } from './shared/parse.js';

/** The count a meter reports to the run, so it survives a restart: `calls` made on Seoul `day`. */
export interface MeterState {
  /** `YYYY-MM-DD`, Asia/Seoul. */
  day: string;
  calls: number;
}

/** A stored MeterState (the JSON the refresh keeps per source), or null when none or unreadable. */
export function readMeterState(json: string | null): MeterState | null {
  const v = json === null ? null : jsonObject(json);
  return v && typeof v['day'] === 'string' && typeof v['calls'] === 'number' ? { day: v['day'], calls: v['calls'] } : null;
}

/** Thrown before a request that would exceed the day's allowance: no call is made. */
export class AllowanceSpent extends Error {
  override readonly name = 'AllowanceSpent';
  constructor(
    readonly source: string,
    readonly callsToday: number,
    readonly dailyAllowance: number,
    /** When the allowance renews (the next Seoul midnight). */
    readonly nextTryAt: Date,
  ) {
    super(`${source}: the day's allowance of ${dailyAllowance} calls is used (${callsToday} made); resumes at the next Seoul midnight`);
  }
}

export class CallMeter {
  private day = '';
  private calls = 0;

  constructor(
    readonly source: string,
    /** Calls a Seoul day; null where the provider documents none (SEC, Polygon, KRX, ECOS). */
    readonly dailyAllowance: number | null,
    private readonly clock: Clock = () => new Date(),
  ) {}

  private roll(): void {
    const today = seoulDay(this.clock());
    if (today !== this.day) {
      this.day = today;
      this.calls = 0;
    }
  }

  /**
   * Takes in a count kept elsewhere (what the last run of this source reported): a count of an
   * earlier day is spent; of today, the larger of the two counts wins (this process may have
   * counted calls of a run that failed before reporting).
   */
  restore(state: MeterState | null | undefined): void {
    this.roll();
    if (!state || state.day !== this.day || !Number.isFinite(state.calls)) return;
    this.calls = Math.max(this.calls, Math.max(0, Math.floor(state.calls)));
  }

  get callsToday(): number {
    this.roll();
    return this.calls;
  }

  /** Calls left today; null when there is no daily cap. */
  remaining(): number | null {
    this.roll();
    return this.dailyAllowance === null ? null : Math.max(0, this.dailyAllowance - this.calls);
  }

  /** Counts one request; throws AllowanceSpent instead when the day's allowance is used. */
  take(): void {
    this.roll();
    if (this.dailyAllowance !== null && this.calls >= this.dailyAllowance) {
      throw new AllowanceSpent(this.source, this.calls, this.dailyAllowance, this.nextTryAt());
    }
    this.calls += 1;
  }

  /**
   * The provider said the allowance is used (OpenDART status 020, the data.go.kr gateway's
   * LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR): no more calls today, whatever we counted.
   */
  spend(): void {
    this.roll();
    if (this.dailyAllowance !== null) this.calls = Math.max(this.calls, this.dailyAllowance);
  }

  /** When the allowance renews: the next Seoul midnight. */
  nextTryAt(): Date {
    return nextSeoulMidnight(this.clock());
  }

  state(): MeterState {
    this.roll();
    return { day: this.day, calls: this.calls };
  }

  now(): Date {
    return this.clock();
  }
}

export interface EtaInput {
  callsLeft: number;
  /** The source's request spacing. */
  perCallMs: number;
  /** Calls left in today's allowance; null without a daily cap. */
  remainingToday: number | null;
  dailyAllowance: number | null;
  /** Seconds until the allowance renews. */
  secondsToReset: number;
}

/**
 * Seconds until `callsLeft` calls are made at `perCallMs` apart, waiting for the allowance to
 * renew each day it runs out: the calls that fit today, then whole days of `dailyAllowance`,
 * the last day partly.
 */
export function pacedEtaSeconds(input: EtaInput): number {
  const per = input.perCallMs / 1000;
  const left = Math.max(0, input.callsLeft);
  if (input.remainingToday === null || input.dailyAllowance === null || left <= input.remainingToday) return Math.ceil(left * per);
  const rest = left - input.remainingToday;
  const allowance = Math.max(1, input.dailyAllowance);
  const fullDays = Math.ceil(rest / allowance) - 1;
  const lastDay = rest - fullDays * allowance;
  return Math.ceil(Math.max(input.remainingToday * per, input.secondsToReset) + fullDays * 86_400 + lastDay * per);
}

/**
 * A walk over `total` units (companies, days) of about `callsPerUnit` calls each, reported to
 * the run's progress: phase `calling` with done / total, the day's calls of the allowance and
 * an ETA at the paced rate; `paced` with `nextTryAt` when the allowance runs out; `done`.
 */
export class CallPlan {
  private done: number;

  constructor(
    private readonly sink: ProgressSink | undefined,
    private readonly meter: CallMeter,
    /** `doneBefore`: units earlier runs did (a walk resumed across runs counts from there). */
    private readonly o: { unit: string; total: number; callsPerUnit: number; perCallMs: number; doneBefore?: number },
  ) {
    this.done = o.doneBefore ?? 0;
  }

  private eta(): number {
    const now = this.meter.now();
    return pacedEtaSeconds({
      callsLeft: (this.o.total - this.done) * this.o.callsPerUnit,
      perCallMs: this.o.perCallMs,
      remainingToday: this.meter.remaining(),
      dailyAllowance: this.meter.dailyAllowance,
      secondsToReset: Math.max(0, (this.meter.nextTryAt().getTime() - now.getTime()) / 1000),
    });
  }

  private calls(): { callsToday: number; dailyAllowance: number | null } {
    return { callsToday: this.meter.callsToday, dailyAllowance: this.meter.dailyAllowance };
  }

  start(note?: string): void {
    this.sink?.({ phase: 'calling', unit: this.o.unit, done: this.done, total: this.o.total, etaSeconds: this.eta(), nextTryAt: null, note: note ?? null, ...this.calls() });
  }

  /** One more unit done. */
  step(): void {
    this.done += 1;
    this.sink?.({ done: this.done, etaSeconds: this.eta(), ...this.calls() });
  }

  /** Out of the day's allowance: stops here, resumes at the renewal. */
  paced(): void {
    this.sink?.({
      phase: 'paced', done: this.done, total: this.o.total, etaSeconds: this.eta(), nextTryAt: this.meter.nextTryAt(),
      note: `the day's allowance of ${this.meter.dailyAllowance ?? '?'} calls is used; ${this.o.total - this.done} ${this.o.unit} left`,
      ...this.calls(),
    });
  }

  /** Stopped for this run with units left (a per-run bound): the next run continues. */
  rest(note: string): void {
    this.sink?.({ phase: 'waiting', done: this.done, total: this.o.total, etaSeconds: this.eta(), nextTryAt: null, note, ...this.calls() });
  }

  finish(): void {
    this.sink?.({ phase: 'done', done: this.done, total: this.o.total, etaSeconds: 0, nextTryAt: null, note: null, ...this.calls() });
  }

  /** Units done, earlier runs' included. */
  get unitsDone(): number {
    return this.done;
  }
}
