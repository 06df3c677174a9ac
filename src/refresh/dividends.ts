// The dividend backfill after a first start from the bulk files. OpenDART's bulk release has the
// statements but no dividend section, so every KR filing it brought lacks the dividend per share
// (alotMatter.json, 배당에 관한 사항, one call per periodic report). With a DART key, this walk
// asks alotMatter.json for the stored filings that lack it, newest first: each company's latest
// annual report (the last fiscal year's dividend), then its latest quarterly report, then that
// quarter a year before (with the two, the TTM dividend and the yield), then the older ones by
// period end, as the day's allowance allows.
//
// - Calls go through the OpenDART adapter's own client: paced, and metered against the key's
//   daily allowance (the count the hourly runs keep in meta `calls:opendart`). A pass stops with
//   `reserve` calls of the day left for the hourly refreshes (phase `paced`), and the next pass
//   goes on after the Seoul midnight that renews the allowance; status 020 ends the day as well.
// - Resumable: the periods answered without a figure (status 013, or an answer without a common
//   share's row) are kept in meta `dividend-backfill`, the figures in the filings themselves, so a
//   restart asks neither again. Answers are saved every `saveEvery` (and on a stop): the figures
//   first in meta (`pending`), then written to the filings, then cleared from meta; a restart
//   writes what a stop left pending without asking again.
// - The figures go through the store's one report write (a filing written again keeps the fields
//   it had; coalesce keeps a dividend another write brought), which derives the stocks' TTM steps
//   and report packs again; a new dataset version is published every `publishEverySeconds` (ten
//   minutes: each is a recompute of the whole universe where it is served) and at the end of a
//   pass, so they are served.
// - Progress on the board under `opendart-dividends` (reports done / total, calls of the day, ETA).

import type { Logger } from 'pino';
import type { FinancialReport, FiscalQuarter } from '../domain/model.js';
import type { Clock } from '../kernel/clock.js';
import { AllowanceSpent, CallPlan, readMeterState } from '../sources/meter.js';
import { REPORT_CODE_BY_QUARTER } from '../sources/opendart/parse.js';
import type { OpenDartSource } from '../sources/opendart/source.js';
import type { Store } from '../store/store.js';
import type { ProgressBoard } from './progress.js';

/** Meta key of the backfill's state (`DividendState` as JSON); absent: no backfill wanted. */
export const DIVIDEND_BACKFILL = 'dividend-backfill';
/** The board's name of the walk. */
export const DIVIDEND_PROGRESS = 'opendart-dividends';

/** Calls of the day's allowance a pass leaves for the hourly refreshes (list.json, statements, dividends of new filings). */
export const DEFAULT_RESERVE = 5_000;

export interface DividendState {
  done: boolean;
  /** Periods (`code:fiscalYear:fiscalQuarter`) answered without a figure: never asked again. */
  noData: string[];
  /** Figures answered and not yet written to the filings (a stop between the two writes). */
  pending: Record<string, number>;
}

export function readDividendState(raw: string | null): DividendState | null {
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as Partial<DividendState>;
    const pending: Record<string, number> = {};
    for (const [k, n] of Object.entries(v.pending ?? {})) if (typeof n === 'number' && Number.isFinite(n)) pending[k] = n;
    return { done: v.done === true, noData: Array.isArray(v.noData) ? v.noData.filter((k): k is string => typeof k === 'string') : [], pending };
  } catch {
    return null;
  }
}

/** Marks a backfill as wanted (a first start from the bulk files), unless one is already recorded. */
export async function wantDividendBackfill(store: Pick<Store['refresh'], 'getMeta' | 'setMeta'>): Promise<void> {
  if ((await store.getMeta(DIVIDEND_BACKFILL)) === null) await store.setMeta(DIVIDEND_BACKFILL, JSON.stringify({ done: false, noData: [], pending: {} }));
}

/** Whether a backfill is wanted and not finished. */
export async function dividendBackfillPending(store: Pick<Store['refresh'], 'getMeta'>): Promise<boolean> {
  const state = readDividendState(await store.getMeta(DIVIDEND_BACKFILL));
  return state !== null && !state.done;
}

export type DividendPassStatus = 'done' | 'paced' | 'stopped' | 'failed';

export interface DividendPass {
  status: DividendPassStatus;
  /** alotMatter.json calls made (corpCode.xml's one call not counted). */
  calls: number;
  /** Periods answered with a figure / without one. */
  figures: number;
  noData: number;
  /** Filings written with their figure. */
  written: number;
  /** Periods left to ask after this pass. */
  left: number;
  /** Periods with no corp_code in corpCode.xml (not asked). */
  unaskable: number;
  /** Dataset versions published. */
  versions: number[];
  /** When a paced pass can go on (the allowance's renewal). */
  nextTryAt: Date | null;
  error: string | null;
  ms: number;
}

export interface Gap {
  key: string;
  /** 0: the company's latest annual report; 1: its latest quarterly one; 2: that quarter a year before; 3: any other. */
  tier: 0 | 1 | 2 | 3;
  securityId: number;
  code: string;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
}

export interface DividendBackfillOptions {
  store: Pick<Store, 'market' | 'refresh'>;
  source: OpenDartSource;
  clock: Clock;
  logger: Logger;
  board: ProgressBoard;
  fetch?: typeof fetch;
  /** Calls of the day left for the hourly refreshes (default DEFAULT_RESERVE). */
  reserve?: number;
  /** Answers saved (meta, then the filings) every this many (default 25). */
  saveEvery?: number;
  publishEverySeconds?: number;
  /** Told of each version published (a serving process serves it); never awaited. */
  onPublish?: (version: number) => void;
}

const keyOf = (code: string, fiscalYear: number, fiscalQuarter: number): string => `${code}:${fiscalYear}:${fiscalQuarter}`;

/**
 * The periods to ask, in order: every company's latest annual report (of those it has stored),
 * then every company's latest quarterly one, then that quarter of the year before, then the
 * others by period end, newest first; ties by code.
 */
export function orderGaps(gaps: readonly Gap[]): Gap[] {
  return [...gaps].sort((a, b) => a.tier - b.tier || b.periodEnd.localeCompare(a.periodEnd) || a.code.localeCompare(b.code));
}

export class DividendBackfill {
  private readonly reserve: number;
  private readonly saveEvery: number;
  private readonly publishEveryMs: number;

  constructor(private readonly o: DividendBackfillOptions) {
    this.reserve = Math.max(0, o.reserve ?? DEFAULT_RESERVE);
    this.saveEvery = Math.max(1, o.saveEvery ?? 25);
    this.publishEveryMs = (o.publishEverySeconds ?? 600) * 1000;
  }

  private async state(): Promise<DividendState> {
    return readDividendState(await this.o.store.refresh.getMeta(DIVIDEND_BACKFILL)) ?? { done: false, noData: [], pending: {} };
  }

  private async save(state: DividendState): Promise<void> {
    await this.o.store.refresh.setMeta(DIVIDEND_BACKFILL, JSON.stringify(state));
  }

  /**
   * The stored KR filings without a dividend figure, by period, not yet answered. Only December
   * fiscal years: alotMatter.json's bsns_year names the business year, which the bulk files'
   * naming (the calendar year a fiscal year ends) matches only for them.
   */
  private async gaps(answered: ReadonlySet<string>): Promise<{ gaps: Gap[]; otherYearEnds: number }> {
    const gaps: Gap[] = [];
    let otherYearEnds = 0;
    for (const s of await this.o.store.market.securities()) {
      if (s.market !== 'KR') continue;
      const periods = new Map<string, { gap: Gap; has: boolean }>();
      let annual: Gap | null = null;
      let quarter: Gap | null = null;
      for (const r of await this.o.store.market.reports(s.id)) {
        const key = keyOf(r.code, r.fiscalYear, r.fiscalQuarter);
        const p = periods.get(key) ?? { gap: { key, tier: 3, securityId: s.id, code: r.code, fiscalYear: r.fiscalYear, fiscalQuarter: r.fiscalQuarter, periodEnd: r.periodEnd }, has: false };
        p.has ||= r.dividendPerShare !== null;
        periods.set(key, p);
        if (r.fiscalQuarter === 4 && (annual === null || r.periodEnd > annual.periodEnd)) annual = p.gap;
        if (r.fiscalQuarter !== 4 && (quarter === null || r.periodEnd > quarter.periodEnd)) quarter = p.gap;
      }
      if (annual) annual.tier = 0;
      if (quarter) {
        quarter.tier = 1;
        const yearBefore = periods.get(keyOf(quarter.code, quarter.fiscalYear - 1, quarter.fiscalQuarter));
        if (yearBefore) yearBefore.gap.tier = 2;
      }
      for (const { gap, has } of periods.values()) {
        if (has || answered.has(gap.key)) continue;
        if (s.fiscalYearEndMonth !== 12) otherYearEnds++;
        else gaps.push(gap);
      }
    }
    return { gaps: orderGaps(gaps), otherYearEnds };
  }

  /** Writes answered figures to the filings of their periods that lack one; returns the filings written. */
  private async writeFigures(figures: Readonly<Record<string, number>>): Promise<number> {
    const bySecurity = new Map<string, Map<string, number>>();
    for (const [key, value] of Object.entries(figures)) {
      const code = key.split(':')[0] as string;
      const m = bySecurity.get(code) ?? new Map<string, number>();
      m.set(key, value);
      bySecurity.set(code, m);
    }
    if (bySecurity.size === 0) return 0;
    const ids = new Map((await this.o.store.market.securities()).filter((s) => s.market === 'KR').map((s) => [s.code, s.id]));
    const rows: FinancialReport[] = [];
    for (const [code, values] of bySecurity) {
      const id = ids.get(code);
      if (id === undefined) continue;
      for (const r of await this.o.store.market.reports(id)) {
        const value = values.get(keyOf(r.code, r.fiscalYear, r.fiscalQuarter));
        if (value !== undefined && r.dividendPerShare === null) rows.push({ ...r, dividendPerShare: value });
      }
    }
    if (rows.length === 0) return 0;
    const written = await this.o.store.market.writeDataset({ reports: rows });
    return written.written;
  }

  /**
   * One pass: asks alotMatter.json for the filings lacking a dividend, newest first, until none
   * is left (`done`), the day's allowance is down to the reserve (`paced`), the signal aborts
   * (`stopped`) or a call fails (`failed`: the next pass tries again).
   */
  async run(signal?: AbortSignal): Promise<DividendPass> {
    const { store, source, clock, logger } = this.o;
    const t0 = clock().getTime();
    const sink = this.o.board.sink(DIVIDEND_PROGRESS);
    const state = await this.state();
    const pass: DividendPass = { status: 'done', calls: 0, figures: 0, noData: 0, written: 0, left: 0, unaskable: 0, versions: [], nextTryAt: null, error: null, ms: 0 };
    const finish = (status: DividendPassStatus): DividendPass => {
      pass.status = status;
      pass.ms = clock().getTime() - t0;
      logger.info({ ...pass, nextTryAt: pass.nextTryAt?.toISOString() ?? null }, `dividend backfill: pass ${status}`);
      return pass;
    };
    if (state.done) return finish('done');

    let lastPublish = clock().getTime();
    let unpublished = false;
    const publish = async (): Promise<void> => {
      if (!unpublished) return;
      unpublished = false;
      lastPublish = clock().getTime();
      const version = await store.refresh.bumpDatasetVersion();
      pass.versions.push(version);
      this.o.onPublish?.(version);
    };
    // A stop between meta and the filings' write: written now, not asked again.
    if (Object.keys(state.pending).length > 0) {
      pass.written += await this.writeFigures(state.pending);
      state.pending = {};
      await this.save(state);
      unpublished = true;
    }

    const noData = new Set(state.noData);
    const { gaps, otherYearEnds } = await this.gaps(noData);
    if (otherYearEnds > 0) logger.info({ periods: otherYearEnds }, 'dividend backfill: filings of non-December fiscal years not asked');
    if (gaps.length === 0) {
      state.done = true;
      await this.save(state);
      await publish();
      sink({ phase: 'done', unit: 'reports', done: 0, total: 0, note: 'every stored KR filing has its dividend section\'s answer' });
      return finish('done');
    }

    const meter = source.meter;
    meter.restore(readMeterState(await store.refresh.getMeta('calls:opendart')));
    const saveMeter = (): Promise<void> => store.refresh.setMeta('calls:opendart', JSON.stringify(meter.state()));
    const http = source.client({ fetch: this.o.fetch ?? globalThis.fetch, ...(signal ? { signal } : {}), log: {
      info: (msg, fields) => logger.info({ source: DIVIDEND_PROGRESS, ...fields }, msg),
      warn: (msg, fields) => logger.warn({ source: DIVIDEND_PROGRESS, ...fields }, msg),
    } });
    const plan = new CallPlan(sink, meter, { unit: 'reports', total: gaps.length, callsPerUnit: 1, perCallMs: source.callSpacingMs });
    const outOfAllowance = (): boolean => {
      const left = meter.remaining();
      return left !== null && left <= this.reserve;
    };
    const paced = async (): Promise<DividendPass> => {
      pass.nextTryAt = meter.nextTryAt();
      pass.left = gaps.length - plan.unitsDone;
      plan.paced();
      await saveMeter();
      await publish();
      return finish('paced');
    };
    if (outOfAllowance()) return paced();

    let batch: Record<string, number> = {};
    let answers = 0;
    const flush = async (): Promise<void> => {
      state.noData = [...noData];
      state.pending = batch;
      await this.save(state);
      const figures = batch;
      batch = {};
      answers = 0;
      const written = await this.writeFigures(figures);
      pass.written += written;
      if (written > 0) unpublished = true;
      state.pending = {};
      await this.save(state);
      await saveMeter();
      if (clock().getTime() - lastPublish >= this.publishEveryMs) await publish();
    };

    let corpOf: Map<string, string>;
    try {
      corpOf = new Map([...(await source.listedCompanies(http)).values()].map((c) => [c.stockCode, c.corpCode]));
    } catch (err) {
      return this.ended(err, signal, pass, plan, paced, finish, gaps.length);
    }
    plan.start('dividend sections of the filings the bulk files brought (alotMatter.json), newest first');
    for (const gap of gaps) {
      if (signal?.aborted) break;
      if (outOfAllowance()) {
        await flush();
        return paced();
      }
      const corpCode = corpOf.get(gap.code);
      if (corpCode === undefined) {
        pass.unaskable++;
        plan.step();
        continue;
      }
      let value: number | null;
      try {
        value = await source.dividendOf(http, { corpCode, fiscalYear: gap.fiscalYear, reprtCode: REPORT_CODE_BY_QUARTER[gap.fiscalQuarter] });
      } catch (err) {
        await flush();
        return this.ended(err, signal, pass, plan, paced, finish, gaps.length);
      }
      pass.calls++;
      if (value === null) {
        noData.add(gap.key);
        pass.noData++;
      } else {
        batch[gap.key] = value;
        pass.figures++;
      }
      plan.step();
      if (++answers >= this.saveEvery) await flush();
    }
    await flush();
    pass.left = gaps.length - plan.unitsDone;
    if (signal?.aborted) {
      plan.rest(`stopped; ${pass.left} reports left for the next start`);
      await publish();
      return finish('stopped');
    }
    // Every period asked (those without a corp_code cannot be: they stay as they are).
    state.done = true;
    await this.save(state);
    await publish();
    plan.finish();
    return finish('done');
  }

  private async ended(
    err: unknown,
    signal: AbortSignal | undefined,
    pass: DividendPass,
    plan: CallPlan,
    paced: () => Promise<DividendPass>,
    finish: (status: DividendPassStatus) => DividendPass,
    total: number,
  ): Promise<DividendPass> {
    if (err instanceof AllowanceSpent) return paced();
    pass.left = total - plan.unitsDone;
    if (signal?.aborted) {
      plan.rest(`stopped; ${pass.left} reports left for the next start`);
      return finish('stopped');
    }
    pass.error = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 200);
    plan.rest(`failed: ${pass.error}; tried again within the hour`);
    return finish('failed');
  }

  /**
   * Passes until the walk is done or `signal` aborts: after a paced pass it waits for the
   * allowance's renewal (a minute past the Seoul midnight), after a failed one an hour.
   * `onFirstPass` is called when the first pass ends. Resolves true when the walk is done.
   */
  async walk(signal: AbortSignal, onFirstPass: (pass: DividendPass) => void = () => undefined): Promise<boolean> {
    let first = true;
    while (!signal.aborted) {
      const pass = await this.run(signal);
      if (first) onFirstPass(pass);
      first = false;
      if (pass.status === 'done') return true;
      if (pass.status === 'stopped') return false;
      const until = pass.status === 'paced' && pass.nextTryAt ? pass.nextTryAt.getTime() + 60_000 : this.o.clock().getTime() + 3_600_000;
      await pause(Math.max(1_000, until - this.o.clock().getTime()), signal);
    }
    return false;
  }
}

/** Resolves after `ms` (at most a day at a time), or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.min(ms, 86_400_000));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
