// The service's state above every page, from GET /readyz (which needs no key, so it shows
// while the data is loading and every data call answers 503): while not ready, each source's
// phase with a progress bar, done / total, calls of the day's allowance, the ETA and the next
// try; always, the coverage numbers per market (listed, priced, scored, complete). The key,
// when one is stored, is sent along: /readyz then adds the sources' error texts.

import type { SourceProgress } from '../../src/sources/progress.js';
import { storedKey } from './api.js';
import { h } from './dom.js';
import { num, timestamp } from './format.js';
import { currentLang, t, tDynamic } from './i18n.js';

/**
 * One source's progress as /readyz sends it: the board's entry without its phase times
 * (src/tools/health.ts `progressEntry`). The type comes from src/sources/progress.ts, which
 * imports nothing; health.ts's imports reach Node-only modules the browser build cannot type.
 */
type Progress = Omit<SourceProgress, 'startedAt' | 'updatedAt'>;

interface Readiness {
  status: 'ready' | 'degraded' | 'unavailable' | 'loading' | 'failed';
  ready: boolean;
  detail: string;
  down: string[];
  lastRun: string | null;
  markets: { market: string; listed: number; priced: number; scored: number; complete: number }[];
  sources: { source: string; ok: boolean; at: string; nextTryAt: string | null; error?: string }[];
  progress: Progress[];
}

/** While not ready (or a source is still loading), /readyz is asked again this often. */
const POLL_MS = 3_000;
const FINISHED = new Set(['done', 'failed']);

async function fetchReadiness(): Promise<Readiness | null> {
  const key = storedKey();
  try {
    const res = await fetch('/readyz', { headers: { accept: 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) } });
    const body = (await res.json()) as Readiness;
    return typeof body.status === 'string' ? body : null;
  } catch {
    return null;
  }
}

/** 3,725 s as "1 h 2 min" / "1시간 2분". */
function duration(seconds: number): string {
  const ko = currentLang() === 'ko';
  const total = Math.ceil(seconds / 60);
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  if (hours === 0) return ko ? `${minutes}분` : `${minutes} min`;
  if (minutes === 0) return ko ? `${hours}시간` : `${hours} h`;
  return ko ? `${hours}시간 ${minutes}분` : `${hours} h ${minutes} min`;
}

function bytes(n: number): string {
  if (n >= 1e9) return `${num(n / 1e9, 2)} GB`;
  if (n >= 1e6) return `${num(n / 1e6, 1)} MB`;
  return `${num(n / 1e3, 0)} kB`;
}

function progressRow(p: Progress, lastRun: Readiness['sources'][number] | undefined): HTMLElement {
  // An unknown total draws a moving bar while the source works, none once it has stopped.
  const finished = FINISHED.has(p.phase);
  const bar = p.total === null && finished ? '' : h('progress', { max: p.total ?? null, value: p.total === null ? null : p.done, 'aria-label': `${p.source} ${p.done}/${p.total ?? '?'}` });
  const count = p.total === null && finished && p.done === 0 ? '' : `${num(p.done, 0)} / ${p.total === null ? '?' : num(p.total, 0)} ${p.unit}`;
  const calls = p.dailyAllowance === null ? (p.callsToday > 0 ? t('statusCalls', { calls: num(p.callsToday, 0) }) : '') : t('statusCallsOf', { calls: num(p.callsToday, 0), allowance: num(p.dailyAllowance, 0) });
  const eta = finished ? '' : p.etaAt === null || p.etaSeconds === null ? t('statusEtaUnknown') : t('statusEta', { at: timestamp(p.etaAt), left: duration(p.etaSeconds) });
  const nextTry = p.nextTryAt ?? (lastRun && !lastRun.ok ? lastRun.nextTryAt : null);
  return h(
    'tr',
    { 'data-source': p.source, 'data-phase': p.phase },
    h('th', {}, p.source),
    h('td', { class: 'phase' }, tDynamic(`phase_${p.phase}`)),
    h('td', {}, bar),
    h('td', { class: 'count' }, count, p.bytes > 0 ? ` · ${bytes(p.bytes)}` : ''),
    h('td', { class: 'calls' }, calls),
    h('td', { class: 'eta' }, eta),
    h('td', { class: 'next-try' }, nextTry === null ? '' : t('statusNextTry', { at: timestamp(nextTry) })),
    h('td', { class: 'why' }, p.note ?? lastRun?.error ?? ''),
  );
}

/** A source with no progress entry: its last run only. */
function lastRunRow(s: Readiness['sources'][number]): HTMLElement {
  return h(
    'tr',
    { 'data-source': s.source, 'data-phase': s.ok ? 'done' : 'failed' },
    h('th', {}, s.source),
    h('td', { class: 'phase' }, tDynamic(s.ok ? 'phase_done' : 'phase_failed')),
    h('td', {}),
    h('td', { class: 'count' }, t('statusLastRun', { at: timestamp(s.at) })),
    h('td', { class: 'calls' }),
    h('td', { class: 'eta' }),
    h('td', { class: 'next-try' }, s.nextTryAt === null ? '' : t('statusNextTry', { at: timestamp(s.nextTryAt) })),
    h('td', { class: 'why' }, s.error ?? ''),
  );
}

function coverageLine(r: Readiness): HTMLElement | null {
  if (r.markets.length === 0) return null;
  return h(
    'p',
    { class: 'coverage', id: 'coverage' },
    `${t('coverage')}: `,
    ...r.markets.flatMap((m, i) => [
      i > 0 ? ' · ' : '',
      h(
        'span',
        { 'data-market': m.market },
        t('coverageMarket', { market: m.market, scored: num(m.scored, 0), listed: num(m.listed, 0), complete: num(m.complete * 100, 1), priced: num(m.priced, 0) }),
      ),
    ]),
  );
}

function render(el: HTMLElement, r: Readiness): void {
  el.className = `card service-status status-${r.status}`;
  el.dataset.status = r.status;
  const busy = r.progress.some((p) => !FINISHED.has(p.phase));
  // Ready with every source done: the coverage line alone.
  if (r.status === 'ready' && !busy) {
    el.replaceChildren(...[coverageLine(r)].filter((x): x is HTMLElement => x !== null));
    el.hidden = el.childElementCount === 0;
    return;
  }
  el.hidden = false;
  const lastRuns = new Map(r.sources.map((s) => [s.source, s]));
  const rows = [...r.progress.map((p) => progressRow(p, lastRuns.get(p.source))), ...r.sources.filter((s) => !r.progress.some((p) => p.source === s.source)).map(lastRunRow)];
  el.replaceChildren(
    h('h2', {}, tDynamic(`status_${r.status}`)),
    h('p', { class: 'status-detail' }, r.detail),
    rows.length > 0 ? h('div', { class: 'table-wrap' }, h('table', { class: 'progress-table' }, h('tbody', {}, ...rows))) : '',
    coverageLine(r) ?? '',
  );
}

/**
 * Keeps `el` showing the service's state. `onReady` runs when the service turns ready after
 * having not been (the page then loads its data). `refresh()` asks now: the router calls it on
 * every render (a new key, a new language), the panel itself while the service is not ready.
 */
export function serviceStatus(el: HTMLElement, onReady: () => void): { refresh(): void } {
  let timer: number | undefined;
  let wasReady: boolean | null = null;
  let seq = 0;
  const refresh = (): void => {
    window.clearTimeout(timer);
    const mine = ++seq;
    void fetchReadiness().then((r) => {
      if (mine !== seq) return;
      if (r === null) {
        el.hidden = true;
      } else {
        render(el, r);
        if (wasReady === false && r.ready) onReady();
        wasReady = r.ready;
      }
      if (r === null || !r.ready || r.progress.some((p) => !FINISHED.has(p.phase))) timer = window.setTimeout(refresh, POLL_MS);
    });
  };
  return { refresh };
}
