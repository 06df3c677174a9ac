// Korean trade: exports, imports and the balance over a chosen window (data from 1990-01),
// and the top export sectors with year-over-year change.

import { api } from '../api.js';
import { tradeChart } from '../charts.js';
import { h, loadingNote } from '../dom.js';
import { money, pct } from '../format.js';
import { exportSectorName, t, type LabelKey } from '../i18n.js';
import type { PageContext } from '../page.js';
import type { SectorExports, TradeTotal } from '../types.js';
import { metaLine, section, segmented } from '../widgets.js';

const EARLIEST = '1990-01';
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const TOPS = ['5', '10', '20'] as const;

const usd = (v: number | null) => money(v, 'USD');

/** `month` moved back by `years`, not before 1990-01. */
function yearsBefore(month: string, years: number): string {
  const [y = 0, m = 1] = month.split('-').map(Number);
  const back = `${String(y - years).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
  return back < EARLIEST ? EARLIEST : back;
}

export async function renderExports(ctx: PageContext): Promise<void> {
  const given = { from: ctx.params.get('from') ?? '', to: ctx.params.get('to') ?? '' };
  const from = MONTH.test(given.from) ? given.from : undefined;
  const to = MONTH.test(given.to) ? given.to : undefined;
  const topParam = ctx.params.get('top') ?? '10';
  const top = (TOPS as readonly string[]).includes(topParam) ? topParam : '10';
  const go = (next: { from?: string; to?: string; top?: string }) => {
    const f = next.from ?? from;
    const tt = next.to ?? to;
    ctx.navigate(`#/exports?${f ? `from=${f}&` : ''}${tt ? `to=${tt}&` : ''}top=${next.top ?? top}`);
  };

  const totalsBody = h('div', {}, loadingNote(t('loading')));
  const sectorsBody = h('div', {}, loadingNote(t('loading')));
  const fromInput = h('input', { type: 'month', id: 'trade-from', min: EARLIEST, value: from ?? '' });
  const toInput = h('input', { type: 'month', id: 'trade-to', min: EARLIEST, value: to ?? '' });
  const windowForm = h(
    'form',
    {
      class: 'controls',
      id: 'trade-window',
      onsubmit: ((event: Event) => {
        event.preventDefault();
        go({ from: fromInput.value || undefined, to: toInput.value || undefined });
      }) as EventListener,
    },
    h('label', {}, `${t('from')} `, fromInput),
    h('label', {}, `${t('to')} `, toInput),
    h('button', { type: 'submit' }, t('apply')),
    h('span', { class: 'presets', id: 'trade-presets' }),
  );
  ctx.view.append(
    section(t('tradeTotals'), 'trade-totals', windowForm, totalsBody),
    section(
      t('topSectors'),
      'top-sectors',
      h('div', { class: 'controls' }, h('span', { class: 'control-label' }, t('top')), segmented('top', TOPS.map((v) => ({ value: v, label: v })), top, (v) => go({ top: v }))),
      sectorsBody,
    ),
  );

  const [totals, sectors] = await Promise.all([api<TradeTotal>('/exports/total', { from, to }), api<SectorExports>('/exports/sectors', { from, to, top })]);
  if (!ctx.isCurrent()) return;
  fromInput.value = totals.from;
  toInput.value = totals.to;
  const presets = windowForm.querySelector('#trade-presets');
  const preset = (label: LabelKey, start: string) =>
    h('button', { type: 'button', class: 'link', 'data-preset': label, onclick: () => go({ from: start, to: totals.to }) }, t(label));
  presets?.replaceChildren(
    preset('window5y', yearsBefore(totals.to, 5)),
    preset('window10y', yearsBefore(totals.to, 10)),
    preset('window20y', yearsBefore(totals.to, 20)),
    preset('windowAll', EARLIEST),
  );

  const chartEl = h('div', { class: 'chart', id: 'trade-chart', 'data-from': totals.from, 'data-to': totals.to, 'data-months': totals.rows.length });
  const attribution = h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, t('chartAttribution'));
  totalsBody.replaceChildren(tradeSummary(totals), chartEl, h('p', { class: 'hint chart-attribution' }, `${t('unitUsd')} · `, attribution), tradeTable(totals), metaLine(totals));
  const dispose = await tradeChart(chartEl, totals.rows);
  if (ctx.isCurrent()) ctx.onDispose(dispose);
  else dispose();

  sectorsBody.replaceChildren(sectorsTable(sectors), h('p', { class: 'hint' }, `${t('exportsBasis', { to: sectors.to })} · ${t('unitUsd')}`), metaLine(sectors));
}

function tradeSummary(totals: TradeTotal): HTMLElement {
  const sum = (pick: (r: TradeTotal['rows'][number]) => number) => totals.rows.reduce((s, r) => s + pick(r), 0);
  const last = totals.rows.at(-1);
  const stat = (label: string, value: string, id: string) => h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), h('div', { class: 'stat-value', id }, value));
  return h(
    'div',
    { class: 'stats' },
    stat(`${t('windowTotal')} · ${t('exports')}`, usd(sum((r) => r.exports)), 'sum-exports'),
    stat(`${t('windowTotal')} · ${t('imports')}`, usd(sum((r) => r.imports)), 'sum-imports'),
    stat(`${t('windowTotal')} · ${t('balance')}`, usd(sum((r) => r.balance)), 'sum-balance'),
    last ? stat(`${t('latestMonth')} (${last.month}) · ${t('exports')}`, `${usd(last.exports)} (${pct(last.exportsYoyPct)})`, 'last-exports') : null,
  );
}

/** Every month of the window, newest first, in a scrollable table. */
function tradeTable(totals: TradeTotal): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap tall' },
    h(
      'table',
      { id: 'trade-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...(['month', 'exports', 'imports', 'balance', 'exportsYoy', 'importsYoy'] as const).map((k) => h('th', { class: k === 'month' ? null : 'num' }, t(k))),
        ),
      ),
      h(
        'tbody',
        {},
        ...[...totals.rows].reverse().map((r) =>
          h(
            'tr',
            { 'data-month': r.month },
            h('td', {}, r.month),
            h('td', { class: 'num' }, usd(r.exports)),
            h('td', { class: 'num' }, usd(r.imports)),
            // A surplus is green and a deficit red, as in the chart (not the red-for-rise of prices).
            h('td', { class: `num ${r.balance >= 0 ? 'surplus' : 'deficit'}` }, usd(r.balance)),
            h('td', { class: 'num' }, pct(r.exportsYoyPct)),
            h('td', { class: 'num' }, pct(r.importsYoyPct)),
          ),
        ),
      ),
    ),
  );
}

function sparkline(values: number[]): SVGElement {
  const width = 120;
  const height = 28;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const points = values.map((v, i) => `${((i / Math.max(values.length - 1, 1)) * width).toFixed(1)},${(height - 2 - ((v - lo) / span) * (height - 4)).toFixed(1)}`).join(' ');
  const el = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  el.setAttribute('viewBox', `0 0 ${width} ${height}`);
  el.setAttribute('class', 'spark');
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', points);
  el.append(line);
  return el;
}

function sectorsTable(sectors: SectorExports): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'sectors-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { class: 'num' }, t('rank')),
          h('th', {}, t('sector')),
          h('th', { class: 'num' }, t('cumulative24m')),
          h('th', { class: 'num' }, t('latestExports')),
          h('th', { class: 'num' }, t('latestYoy')),
          h('th', {}, ''),
        ),
      ),
      h(
        'tbody',
        {},
        ...sectors.sectors.map((s) => {
          const last = s.series.at(-1);
          return h(
            'tr',
            { 'data-sector': s.sector },
            h('td', { class: 'num' }, String(s.rank)),
            h('td', {}, exportSectorName(s.sector, s.sectorKo)),
            h('td', { class: 'num' }, usd(s.cumulative24m)),
            h('td', { class: 'num' }, last ? `${usd(last.exports)} (${last.month})` : '—'),
            h('td', { class: `num ${(last?.yoyPct ?? 0) >= 0 ? 'up' : 'down'}`, 'data-col': 'yoy' }, pct(last?.yoyPct ?? null)),
            h('td', {}, sparkline(s.series.map((p) => p.exports))),
          );
        }),
      ),
    ),
  );
}
