// One stock: search, score and grade with the target price and gap, the TTM snapshot in the
// spec's six groups, the price chart (day/week/month), the valuation band and the 17-metric
// percentiles within the sector and the market.

import { ApiProblem, api } from '../api.js';
import { bandChart, priceChart, type PriceChart } from '../charts.js';
import { h, loadingNote, note } from '../dom.js';
import { errorText } from '../errors.js';
import { eok, inUnit, money, num, pct, price, stockName, volume } from '../format.js';
import { metricLabel, sectorName, t, tDynamic } from '../i18n.js';
import type { PageContext } from '../page.js';
import { CODE_PATTERN, findStocks } from '../search.js';
import {
  SNAPSHOT_GROUPS,
  type BandType,
  type Cohort,
  type Interval,
  type PriceHistory,
  type SectorPercentile,
  type SnapshotGroup,
  type SnapshotMetric,
  type StockScore,
  type StockSnapshot,
  type ValuationBand,
} from '../types.js';
import { metaLine, section, segmented } from '../widgets.js';

/** Bars per interval: about a year of days, five years of weeks, ten years of months. */
const BAR_LIMIT: Record<Interval, number> = { day: 260, week: 260, month: 120 };
const BAND_FROM = '2015-01-01';

export async function renderStock(ctx: PageContext): Promise<void> {
  const code = ctx.path[0] ?? '';
  const search = searchBox(ctx, code);
  ctx.view.append(search);
  if (code === '') {
    ctx.view.append(note(t('stockPrompt')));
    return;
  }
  const loading = loadingNote(t('loading'));
  ctx.view.append(loading);
  let score: StockScore;
  try {
    score = await api<StockScore>(`/stocks/${encodeURIComponent(code)}/score`);
  } catch (err) {
    // An unknown code: the way on is the search box above, which gets the focus.
    if (!(err instanceof ApiProblem) || err.status !== 404 || !ctx.isCurrent()) throw err;
    loading.replaceWith(note(t('stockNotFound', { code }), 'error'));
    const input = search.querySelector('input');
    input?.focus();
    input?.select();
    return;
  }
  if (!ctx.isCurrent()) return;
  loading.remove();
  const path = `/stocks/${encodeURIComponent(score.code)}`;

  const snapshotBox = h('div', {}, loadingNote(t('loading')));
  const chartBox = h('div', {});
  const bandBox = h('div', {});
  const percentileBox = h('div', {}, loadingNote(t('loading')));
  ctx.view.append(
    stockHeader(score),
    scoreCard(score),
    section(t('snapshot'), 'snapshot', snapshotBox),
    section(t('priceChart'), 'prices', chartBox),
    section(t('valuationBand'), 'valuation-band', bandBox),
    section(t('percentiles'), 'percentiles', h('p', { class: 'hint' }, t('percentileNote')), percentileBox),
  );

  // The sections load independently; one failing shows its error in place.
  const failed = (box: HTMLElement) => (err: unknown) => {
    if (!ctx.isCurrent()) return;
    box.replaceChildren(note(errorText(err), 'error'));
  };
  await Promise.all([
    api<StockSnapshot>(`${path}/snapshot`)
      .then((snapshot) => ctx.isCurrent() && snapshotBox.replaceChildren(snapshotView(snapshot)))
      .catch(failed(snapshotBox)),
    pricesView(ctx, path, score, chartBox).catch(failed(chartBox)),
    bandView(ctx, path, bandBox).catch(failed(bandBox)),
    Promise.all([api<SectorPercentile>(`${path}/percentile`, { cohort: 'sector' }), api<SectorPercentile>(`${path}/percentile`, { cohort: 'market' })])
      .then(([sector, market]) => ctx.isCurrent() && percentileBox.replaceChildren(percentileView(sector, market)))
      .catch(failed(percentileBox)),
  ]);
}

function searchBox(ctx: PageContext, code: string): HTMLElement {
  const input = h('input', { type: 'search', id: 'stock-search', placeholder: t('searchPlaceholder'), value: code, autocomplete: 'off', 'aria-label': t('search') });
  const results = h('ul', { class: 'search-results', id: 'search-results' });
  const show = (text: string) =>
    findStocks(text).then((matches) => {
      if (input.value !== text) return;
      results.replaceChildren(
        ...matches.map((m) =>
          h(
            'li',
            {},
            h(
              'a',
              { href: `#/stock/${encodeURIComponent(m.code)}`, 'data-ticker': m.code },
              `${m.name} `,
              m.nameEn && m.nameEn !== m.name ? h('span', { class: 'name-en' }, `${m.nameEn} `) : '',
              h('span', { class: 'code' }, `${m.code} · ${m.market}`),
            ),
          ),
        ),
      );
    });
  // Each search is a counted API call: ask once the typing pauses, not on every key.
  let typing: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener('input', () => {
    clearTimeout(typing);
    if (input.value.trim().length >= 1) typing = setTimeout(() => void show(input.value).catch(() => results.replaceChildren()), 200);
    else results.replaceChildren();
  });
  const form = h(
    'form',
    {
      class: 'search',
      role: 'search',
      onsubmit: ((event: Event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (text === '') return;
        // A name match wins (typing "Apple" looks for the name, not the ticker APPLE); with
        // no match, a code-shaped text is looked up directly.
        clearTimeout(typing);
        void findStocks(text)
          .catch(() => [])
          .then((matches) => {
            const exact = matches.find((m) => m.matchedOn === 'code' && m.matchType === 'exact');
            const only = matches.length === 1 ? matches[0] : undefined;
            const target = exact?.code ?? only?.code ?? (matches.length === 0 && CODE_PATTERN.test(text) ? text.toUpperCase() : undefined);
            if (target !== undefined) ctx.navigate(`#/stock/${encodeURIComponent(target)}`);
            else if (matches.length === 0) results.replaceChildren(h('li', { class: 'note' }, t('searchNoMatch')));
            else void show(text);
          });
      }) as EventListener,
    },
    input,
    h('button', { type: 'submit' }, t('search')),
  );
  return h('div', { class: 'card search-card' }, form, results, h('p', { class: 'hint' }, t('searchHint')));
}

function stockHeader(score: StockScore): HTMLElement {
  return h(
    'div',
    { class: 'stock-header', id: 'stock-header' },
    h(
      'h1',
      {},
      stockName(score).shown,
      ' ',
      stockName(score).other === null ? null : h('span', { class: 'name-en', id: 'stock-other-name' }, `${stockName(score).other ?? ''} `),
      h('span', { class: 'code', id: 'stock-code' }, `${score.code} · ${score.market} · ${score.currency}`),
    ),
    h(
      'p',
      {},
      `${t('currentPrice')} `,
      h('strong', { id: 'current-price' }, price(score.currentPrice, score.currency)),
      score.priceDate ? ` (${score.priceDate})` : '',
      ` · ${t('marketCap')} ${money(score.marketCap, score.currency)}`,
      score.band ? ` · ${t('band')} ${tDynamic(`band_${score.band}`)}` : '',
    ),
  );
}

function stat(label: string, value: Node | string, id?: string): HTMLElement {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), h('div', { class: 'stat-value', id: id ?? null }, value));
}

function scoreCard(score: StockScore): HTMLElement {
  if (score.score === null) {
    return section(t('score'), 'score', h('p', { class: 'note', id: 'no-score' }, `${t('noScore')}: ${score.reason ?? ''}`), metaLine(score));
  }
  const gapClass = (score.gapPct ?? 0) >= 0 ? 'up' : 'down';
  const inputs = score.inputs;
  return section(
    t('score'),
    'score',
    h(
      'div',
      { class: 'stats' },
      stat(t('score'), num(score.score, 1), 'score-value'),
      stat(t('grade'), h('span', { class: `grade grade-${(score.grade ?? '').replace('+', 'p')}` }, score.grade ?? '—'), 'grade'),
      stat(t('targetPrice'), price(score.targetPrice, score.currency), 'target-price'),
      stat(t('gapPct'), h('span', { class: gapClass }, pct(score.gapPct, 2)), 'gap-pct'),
      stat(t('v3Score'), num(score.v3Score, 1)),
      stat(t('referenceQuarter'), score.referenceQuarter ?? '—'),
      stat(t('disclosedOn'), score.disclosedOn ?? '—'),
      stat(t('cohortSize'), String(score.cohortSize)),
    ),
    inputs
      ? h(
          'p',
          { class: 'inputs' },
          `${t('yoy')} ${pct(inputs.yoy)} · ${t('ttmNiEok')} ${eok(inputs.ttmNiEok)} · ${t('supplyPct')} ${pct(inputs.supplyPct)} · ${t('momentumPct')} ${pct(inputs.momentumPct)}`,
          inputs.usdKrw !== null ? ` · USD/KRW ${num(inputs.usdKrw, 2)}` : '',
        )
      : null,
    h('p', { class: 'hint' }, t('scoreNote')),
    metaLine(score),
  );
}

export function snapshotView(snapshot: StockSnapshot): HTMLElement {
  const groups = (Object.keys(SNAPSHOT_GROUPS) as SnapshotGroup[]).map((group) => {
    const metrics = snapshot[group] as Record<string, SnapshotMetric>;
    return h(
      'div',
      { class: 'snapshot-group', 'data-group': group },
      h('h3', {}, tDynamic(`group_${group}`)),
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, h('th', {}, t('metric')), h('th', { class: 'num' }, t('value')), h('th', {}, t('referenceQuarter')), h('th', {}, t('disclosedOn')), h('th', {}, t('priceDate')))),
        h(
          'tbody',
          {},
          ...SNAPSHOT_GROUPS[group].map((key) => {
            const m = metrics[key];
            if (m === undefined) return null;
            return h(
              'tr',
              { 'data-metric': key },
              h('td', {}, metricLabel(key)),
              h('td', { class: 'num', title: m.reason ?? null }, group === 'perShare' && (m.unit === 'KRW' || m.unit === 'USD') ? price(m.value, m.unit) : inUnit(m.value, m.unit), m.value === null && m.reason ? h('div', { class: 'reason' }, m.reason) : null),
              h('td', {}, m.referenceQuarter ?? '—'),
              h('td', {}, m.disclosedOn ?? '—'),
              h('td', {}, m.priceDate ?? '—'),
            );
          }),
        ),
      ),
    );
  });
  return h('div', {}, h('div', { class: 'snapshot-grid' }, ...groups), metaLine(snapshot));
}

async function pricesView(ctx: PageContext, path: string, score: StockScore, box: HTMLElement): Promise<void> {
  const chartEl = h('div', { class: 'chart', id: 'price-chart' });
  const caption = h('p', { class: 'caption', id: 'price-caption' }, t('loading'));
  const meta = h('div', {});
  let interval: Interval = 'day';
  let chart: PriceChart | null = null;
  const load = async (next: Interval) => {
    interval = next;
    chartEl.dataset.interval = next;
    chartEl.dataset.ready = 'false';
    const history = await api<PriceHistory>(`${path}/prices`, { interval: next, limit: BAR_LIMIT[next] });
    // A later click may have overtaken this response.
    if (!ctx.isCurrent() || interval !== next) return;
    if (chart === null) {
      chart = await priceChart(chartEl, score.market, score.currency);
      if (!ctx.isCurrent()) {
        chart.dispose();
        return;
      }
      const created = chart;
      ctx.onDispose(() => created.dispose());
    }
    chart.setBars(history.bars);
    const last = history.bars.at(-1);
    chartEl.dataset.count = String(history.count);
    chartEl.dataset.ready = 'true';
    // The bars are split-adjusted (the API's default): name the splits divided out, if any
    // (a 50-for-1 split as x50, a 1-for-10 consolidation as x1/10).
    const splits = history.splits.map((s) => `${s.date} ×${s.factor >= 1 ? s.factor : `1/${Math.round(1 / s.factor)}`}`).join(', ');
    caption.textContent = last
      ? `${history.count} ${t('bars')} · ${t('lastBar')} ${last.date} · ${t('close')} ${price(last.close, history.currency)} · ${t('volume')} ${volume(last.volume)}` +
        (history.adjusted && splits !== '' ? ` · ${t('splitAdjusted', { splits })}` : '')
      : '—';
    if (last) {
      caption.dataset.lastDate = last.date;
      caption.dataset.lastClose = String(last.close);
    }
    meta.replaceChildren(metaLine(history));
  };
  const switcher = segmented<Interval>(
    'interval',
    (['day', 'week', 'month'] as const).map((v) => ({ value: v, label: tDynamic(`interval_${v}`) })),
    interval,
    (next) => {
      load(next).catch((err: unknown) => {
        caption.textContent = errorText(err);
      });
    },
  );
  // The chart library's licence asks for its attribution: a link here rather than its logo in
  // the chart, where it covered the volume bars.
  const attribution = h('p', { class: 'hint chart-attribution' }, h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, t('chartAttribution')));
  box.replaceChildren(switcher, chartEl, caption, attribution, meta);
  await load('day');
}

async function bandView(ctx: PageContext, path: string, box: HTMLElement): Promise<void> {
  const body = h('div', {}, loadingNote(t('loading')));
  let type: BandType = 'per';
  const load = async (next: BandType) => {
    type = next;
    const band = await api<ValuationBand>(`${path}/valuation-band`, { type: next, from: BAND_FROM });
    if (!ctx.isCurrent() || type !== next) return;
    const cur = band.current;
    const x = (v: number | null) => (v === null ? '—' : `${num(v, 2)}x`);
    body.replaceChildren(
      band.daysUsed === 0
        ? note(band.reason ?? '—')
        : bandChart(band, { p5: t('p5'), median: t('median'), p95: t('p95'), current: t('current') }),
      h('p', { class: 'hint' }, t('bandExplain')),
      h(
        'div',
        { class: 'stats', id: 'band-stats', 'data-type': band.type },
        stat(t('p5'), x(band.p5), 'band-p5'),
        stat(t('median'), x(band.median), 'band-median'),
        stat(t('p95'), x(band.p95), 'band-p95'),
        stat(t('min'), x(band.min)),
        stat(t('max'), x(band.max)),
        stat(`${t('current')}${cur ? ` (${cur.date})` : ''}`, cur?.value != null ? x(cur.value) : (cur?.reason ?? '—'), 'band-current'),
        stat(t('currentPercentile'), cur?.percentile != null ? num(cur.percentile, 0) : '—'),
        stat(t('daysUsed'), `${band.daysUsed} / ${t('daysExcluded')} ${band.daysExcluded}`),
        stat(t('since'), `${band.from} – ${band.to}`),
      ),
      metaLine(band),
    );
  };
  const switcher = segmented<BandType>(
    'band-type',
    (['per', 'pbr', 'psr'] as const).map((v) => ({ value: v, label: v.toUpperCase() })),
    type,
    (next) => {
      load(next).catch((err: unknown) => body.replaceChildren(note(errorText(err), 'error')));
    },
  );
  box.replaceChildren(switcher, body);
  await load('per');
}

function percentileView(sector: SectorPercentile, market: SectorPercentile): HTMLElement {
  const byMetric = new Map(market.metrics.map((m) => [m.metric, m]));
  const bar = (cohort: Cohort, percentile: number | null, size: number) =>
    h(
      'div',
      { class: `pbar pbar-${cohort}`, 'data-cohort': cohort, 'data-percentile': percentile === null ? '' : String(percentile) },
      h('span', { class: 'pbar-label' }, tDynamic(`cohort_${cohort}`)),
      h('span', { class: 'pbar-track' }, h('span', { class: 'pbar-fill', style: `width:${percentile ?? 0}%` })),
      h('span', { class: 'pbar-value' }, percentile === null ? '—' : `${num(percentile, 0)} (n=${size})`),
    );
  const legend = h(
    'p',
    { class: 'cohorts', id: 'cohorts' },
    `${t('cohort_sector')}: `,
    h('strong', {}, sectorName(sector.cohortName, sector.cohortNameKo)),
    ` (${sector.cohortMembers} ${t('members')}) · ${t('cohort_market')}: `,
    h('strong', {}, market.cohortName),
    ` (${market.cohortMembers} ${t('members')})`,
  );
  const rows = sector.metrics.map((s) => {
    const m = byMetric.get(s.metric);
    return h(
      'div',
      { class: 'prow', 'data-metric': s.metric },
      h('div', { class: 'prow-name' }, metricLabel(s.metric), h('div', { class: 'prow-value' }, inUnit(s.value, s.unit))),
      h('div', { class: 'prow-bars' }, bar('sector', s.percentile, s.cohortSize), bar('market', m?.percentile ?? null, m?.cohortSize ?? 0)),
    );
  });
  return h('div', {}, legend, h('div', { class: 'prows', id: 'percentile-rows' }, ...rows), metaLine(sector));
}
