// `npm run cli -- backtest`: top N stocks by V3 score (get_rankings' answer) or by a screen
// (screen_stocks' answer), as each answered on a past rebalance day, held for a number of months
// and measured against the market's equal-weight mean (docs/calculations.md, "Backtest"). Every
// figure a pick is chosen by is the as-of answer of its day: the tools' own handlers on the
// day's snapshot (src/serving/backtest.ts); the returns are split-consistent closes
// (src/domain/backtest.ts).
//
// Exit codes: 0 done; 2 an option is invalid (the message names it); 1 the store cannot answer
// (no price of the market, or no period whose holding is over).

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { periodStarts, planPeriods, summarize, type BacktestSummary, type PeriodPlan } from '../domain/backtest.js';
import type { Market } from '../domain/model.js';
import { BAND_KEYS } from '../domain/results.js';
import { ApiError } from '../kernel/errors.js';
import { runBacktest, type Candidate, type PeriodResult } from '../serving/backtest.js';
import { computeSnapshot } from '../serving/build.js';
import { SnapshotDataset } from '../serving/served.js';
import type { MarketDataStore } from '../store/market-data.js';
import { getRankings } from '../tools/get-rankings.js';
import { screenStocks } from '../tools/screen-stocks.js';
import type { Account, ToolDefinition } from '../tools/tool.js';

export const BACKTEST_USAGE = `usage: backtest --market KR|US --from YYYY-MM [--to YYYY-MM] [--rebalance month|quarter] [--top N]
                [--by score | --screen 'FILTERS' [--sort FIELD[:asc|desc]]] [--bands B,B,...] [--hold MONTHS] [--csv FILE]
  --market     the market whose stocks are picked and measured (required)
  --from/--to  the first and last period (YYYY-MM); --to defaults to the month of the last session
  --rebalance  month (default) or quarter: a new period every one or three months from --from
  --top        picks per period, 1..500 (default 20)
  --by score   the top N of get_rankings (V3 score) as of each rebalance day (the default)
  --screen     screen_stocks' filters as REST takes them (roe:10:,per::15); --sort its sort (default marketCap:desc)
  --bands      market-cap bands from ${BAND_KEYS.join(', ')} (default all)
  --hold       months each period's picks are held, 1..120 (default 12)
  --csv        write one row per period and pick to FILE
exit codes: 0 done, 2 invalid option, 1 the store cannot answer (no price of the market, or no period whose holding is over)`;

/** An option the command cannot run with: its message names the option; exit code 2. */
export class BacktestUsageError extends Error {}
/** The store cannot answer the backtest asked for; exit code 1. */
export class BacktestDataError extends Error {}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const month = z.string().regex(MONTH, { error: 'must be a month YYYY-MM' });
const whole = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));

const optionsSchema = z
  .strictObject({
    market: z.enum(['KR', 'US'], { error: 'must be KR or US' }),
    from: month,
    to: month.optional(),
    rebalance: z.enum(['month', 'quarter'], { error: 'must be month or quarter' }).default('month'),
    top: whole(1, 500).default(20),
    by: z.enum(['score'], { error: 'must be score (or use --screen)' }).optional(),
    screen: z.string().max(2000).optional(),
    sort: z.string().max(60).optional(),
    bands: z
      .string()
      .regex(new RegExp(`^(${BAND_KEYS.join('|')})(,(${BAND_KEYS.join('|')}))*$`), { error: `must be comma-separated bands from ${BAND_KEYS.join(', ')}` })
      .default(BAND_KEYS.join(',')),
    hold: whole(1, 120).default(12),
    csv: z.string().min(1).optional(),
  })
  .superRefine((o, ctx) => {
    if (o.to !== undefined && o.to < o.from) ctx.addIssue({ code: 'custom', path: ['to'], message: `is before --from ${o.from}` });
    if (o.by !== undefined && (o.screen !== undefined || o.sort !== undefined)) ctx.addIssue({ code: 'custom', path: ['by'], message: 'and --screen/--sort pick in two ways; give one' });
  });

export type BacktestOptions = z.output<typeof optionsSchema>;

/** The command's options from its arguments, or a BacktestUsageError naming the option at fault. */
export function parseBacktestOptions(args: readonly string[]): BacktestOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      options: Object.fromEntries(['market', 'from', 'to', 'rebalance', 'top', 'by', 'screen', 'sort', 'bands', 'hold', 'csv'].map((o) => [o, { type: 'string' as const }])),
    }) as { values: Record<string, string | undefined> });
  } catch (err) {
    throw new BacktestUsageError((err as Error).message);
  }
  for (const required of ['market', 'from']) if (values[required] === undefined) throw new BacktestUsageError(`--${required} is required`);
  const parsed = optionsSchema.safeParse(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    throw new BacktestUsageError(`--${String(issue.path[0])} ${issue.message}`);
  }
  return parsed.data;
}

/** What the tools' handlers are called with besides the data: a caller without a key, as the CLI is. */
const ACCOUNT: Account = { valid: true, plan: null, keyPrefix: null, callsToday: 0, dailyQuota: null, resetsAt: '' };

const rankingAnswer = z.object({ totalCount: z.number(), rows: z.array(z.object({ ticker: z.string(), name: z.string(), score: z.number() })) });
const screenAnswer = z.object({ totalCount: z.number(), rows: z.array(z.record(z.string(), z.unknown())) });

/** Rows a page of the answers asks for (get_rankings' MCP limit). */
const PAGE = 100;

/** How a backtest picks: the answer it asks each day, paged in its order, and the value it shows. */
interface Picker {
  /** The CSV column of the value the picks are ordered by. */
  valueField: string;
  describe: string;
  candidates(dataset: SnapshotDataset): AsyncIterable<Candidate>;
}

async function answer(tool: ToolDefinition, args: unknown, dataset: SnapshotDataset): Promise<unknown> {
  return tool.handler(args as never, { data: dataset, account: ACCOUNT });
}

function rankingPicker(options: BacktestOptions): Picker {
  return {
    valueField: 'v3Score',
    describe: `top ${options.top} by V3 score (get_rankings)`,
    async *candidates(dataset) {
      for (let offset = 0; ; offset += PAGE) {
        const args = getRankings.input.parse({ market: options.market, bands: options.bands, limit: PAGE, offset });
        const page = rankingAnswer.parse(await answer(getRankings, args, dataset));
        for (const row of page.rows) yield { code: row.ticker, name: row.name, value: row.score };
        if (page.rows.length === 0 || offset + PAGE >= page.totalCount) return;
      }
    },
  };
}

/**
 * The screen's picker, its filters and sort checked first by screen_stocks itself (on a dataset
 * without stocks, which it answers data_unavailable once every argument has passed).
 */
async function screenPicker(options: BacktestOptions, store: MarketDataStore): Promise<Picker> {
  const sortText = options.sort ?? 'marketCap:desc';
  const rest = screenStocks.restInput as NonNullable<ToolDefinition['restInput']>;
  const argsAt = (offset: number) => {
    const parsed = rest.safeParse({ market: options.market, bands: options.bands, filters: options.screen ?? '', sort: sortText, limit: PAGE, offset, format: 'rows' });
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      throw new BacktestUsageError(`${issue.path[0] === 'sort' ? '--sort' : '--screen'} ${issue.message}`);
    }
    return parsed.data as { sort: { field: string } } & Record<string, unknown>;
  };
  const field = argsAt(0).sort.field;
  const withField = (offset: number) => ({ ...argsAt(offset), fields: [field] });
  const empty = new SnapshotDataset(
    computeSnapshot({ securities: [], reports: new Map(), recentBars: new Map(), recentFlows: new Map(), fx: [], trade: [], sectorExports: [] }, '2000-01-01'),
    { version: 0, updatedAt: '2000-01-01', source: 'check', nextRefreshAt: null, sources: [] },
    store,
  );
  try {
    await answer(screenStocks, withField(0), empty);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'invalid_parameter') throw new BacktestUsageError(`${err.extra.parameter === 'sort' ? '--sort' : '--screen'}: ${err.detail.replace(/^parameter '\w+' /, '')}`);
  }
  return {
    valueField: field,
    describe: `top ${options.top} of the screen ${options.screen === undefined || options.screen === '' ? '(no filters)' : `'${options.screen}'`} sorted by ${sortText} (screen_stocks)`,
    async *candidates(dataset) {
      for (let offset = 0; ; offset += PAGE) {
        // The answer's rows as they serialise (its rows are a lazy page of the screen index).
        const page = screenAnswer.parse(JSON.parse(JSON.stringify(await answer(screenStocks, withField(offset), dataset))));
        for (const row of page.rows) yield { code: String(row.code), name: String(row.name), value: (row[field] ?? null) as number | string | null };
        if (page.rows.length === 0 || offset + PAGE >= page.totalCount) return;
      }
    },
  };
}

export interface BacktestReport {
  results: PeriodResult[];
  summary: BacktestSummary;
  leftOut: PeriodPlan['leftOut'];
  lines: string[];
  csv: string | null;
}

const DEMO_NOTICE = 'NOTE: the store holds the invented demo universe: these results come from invented data and mean nothing about any real stock or market.';

/** Runs the backtest on `store` and prints it to `out`; timings and progress go to `err`. */
export async function backtest(store: MarketDataStore, demo: boolean, options: BacktestOptions, out: (text: string) => void, err: (text: string) => void): Promise<BacktestReport> {
  const picker = options.screen !== undefined || options.sort !== undefined ? await screenPicker(options, store) : rankingPicker(options);
  const started = performance.now();
  const sessions = await store.tradingDates(options.market as Market);
  const sessionsMs = performance.now() - started;
  const lastSession = sessions.at(-1);
  if (lastSession === undefined) throw new BacktestDataError(`the store holds no ${options.market} price (start the service once to load the demo universe, or import history: npm run cli -- import)`);
  const to = options.to ?? lastSession.slice(0, 7);
  const plan = planPeriods(sessions, to < options.from ? [] : periodStarts(options.from, to, options.rebalance), options.hold);
  const head = `Backtest ${options.market}: ${picker.describe}, bands ${options.bands}, rebalanced every ${options.rebalance} ${options.from}..${to}, each held ${options.hold} months, against the equal-weight mean of every ${options.market} stock with a close on the rebalance day`;
  out(`${head}\n`);
  if (demo) out(`${DEMO_NOTICE}\n`);
  for (const line of leftOutLines(plan, sessions)) out(`${line}\n`);
  if (plan.periods.length === 0) throw new BacktestDataError(`no period of ${options.from}..${to} can be measured: the ${options.market} sessions run ${sessions[0] as string}..${lastSession}, and a period needs a session on or before its start and its ${options.hold}-month holding over`);
  const progress = process.stderr.isTTY ? (done: number, of: number) => err(`\rbacktest: period ${done} of ${of}`) : undefined;
  const { results, timings } = await runBacktest(store, {
    market: options.market,
    periods: plan.periods,
    top: options.top,
    candidates: (dataset) => picker.candidates(dataset),
    source: demo ? 'demo' : 'store',
    ...(progress ? { onPeriod: progress } : {}),
  });
  if (progress) err('\n');
  const summary = summarize(results.map((r) => ({ ...r, picks: r.picks.length })));
  const lines = [...tableLines(results), '', summaryLine(summary)];
  for (const line of lines) out(`${line}\n`);
  if (demo) out(`${DEMO_NOTICE}\n`);
  let csv: string | null = null;
  if (options.csv !== undefined) {
    csv = csvOf(results, picker.valueField);
    writeFileSync(resolve(options.csv), csv);
    out(`CSV: ${results.reduce((n, r) => n + r.picks.length, 0)} rows written to ${resolve(options.csv)}\n`);
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  err(
    `backtest: ${plural(results.length, 'period')} in ${s(performance.now() - started)} (sessions ${s(sessionsMs)}, snapshots ${s(timings.snapshotsMs)}, ` +
      `picks ${s(timings.picksMs)}, returns ${s(timings.returnsMs)})\n`,
  );
  return { results, summary, leftOut: plan.leftOut, lines, csv };
}

/** The left-out periods, consecutive ones of the same reason on one line. */
function leftOutLines(plan: PeriodPlan, sessions: readonly string[]): string[] {
  const lines: string[] = [];
  const why = { 'before-data': `no session on or before the period start (the first session is ${sessions[0] ?? '-'})`, 'not-over': `the holding is not over by the last session (${sessions.at(-1) ?? '-'})` };
  for (let i = 0; i < plan.leftOut.length; ) {
    let j = i;
    while (j + 1 < plan.leftOut.length && plan.leftOut[j + 1]?.why === plan.leftOut[i]?.why) j++;
    const a = plan.leftOut[i] as PeriodPlan['leftOut'][number];
    const b = plan.leftOut[j] as PeriodPlan['leftOut'][number];
    lines.push(`left out ${a.start.slice(0, 7)}${j > i ? `..${b.start.slice(0, 7)} (${j - i + 1} periods)` : ''}: ${why[a.why]}`);
    i = j + 1;
  }
  return lines;
}

const signed = (x: number | null, unit: string): string => (x === null ? '-' : `${x > 0 ? '+' : ''}${x.toFixed(2)}${unit}`);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const share = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);

const COLUMNS = ['date', 'end', 'picks', 'mean return', 'hit rate', 'market mean', 'excess', 'market stocks'] as const;

/** One line per period: rebalance day, holding end, picks, their mean return and hit rate, the market mean and the excess. */
export function tableLines(results: readonly PeriodResult[]): string[] {
  const rows = results.map((r) => [r.day, r.endDay, String(r.picks.length), signed(r.meanReturn, '%'), share(r.hitRate), signed(r.marketMean, '%'), signed(r.excess, ' pp'), String(r.marketStocks)]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(COLUMNS), ...rows.map(line)];
}

export function summaryLine(s: BacktestSummary): string {
  return (
    `summary: ${plural(s.periods, 'period')} (${s.counted} with picks); mean return ${signed(s.meanReturn, '%')}; mean excess ${signed(s.meanExcess, ' pp')}; ` +
    `hit rate ${share(s.hitRate)} (${s.hits} of ${s.picks} picks beat their period's market mean); ` +
    `periods beating the market ${share(s.beatingShare)} (${s.beating} of ${s.counted})`
  );
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function field(value: string | number | boolean | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row per period and pick: the rebalance day, the holding's end, the pick, its value, its closes and its return. */
export function csvOf(results: readonly PeriodResult[], valueField: string): string {
  const rows = [['date', 'end_date', 'code', 'name', valueField, 'start_close', 'end_close_date', 'end_close', 'return_pct', 'ended_early']];
  for (const r of results) {
    for (const p of r.picks) rows.push([r.day, r.endDay, p.code, p.name, p.value === null ? '' : String(p.value), String(p.start.close), p.end.date, String(p.end.close), String(p.returnPct), String(p.endedEarly)]);
  }
  return rows.map((row) => row.map(field).join(',')).join('\n') + '\n';
}
