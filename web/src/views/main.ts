// The MCP Apps view (web/views): the dashboard's charts and tables drawn inside the conversation
// from a tool's answer, which the host hands over through the extension's bridge (the App
// class); the view itself never fetches. Its language and theme follow the host's context
// (Korean for a `ko` locale, English otherwise; light or dark). A table's row asks the host for
// get_stock_snapshot, the snapshot's button for get_price_history, the price chart's band
// buttons for get_valuation_band: each a tools/call of the host's, counted like any other.

import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import '../style.css';
import './view.css';
import { bandChart, priceChart, sectorLinesChart, SERIES_COLORS, setChartTheme, tradeChart, type PriceChart } from '../charts.js';
import { h, note } from '../dom.js';
import { money, num, pct, price, stockName, volume } from '../format.js';
import { currentLang, metricLabel, setLang, t, tDynamic } from '../i18n.js';
import { snapshotView } from '../pages/stock.js';
import { cell as screenCell } from '../pages/screener.js';
import type { BandType, RankingRow, ScreenRow, StockSnapshot } from '../types.js';
import { metaLine } from '../widgets.js';
import { pictureOf, rowsOf, type Picture } from './data.js';

/** The view's own words (the rest are the dashboard's, web/src/i18n.ts). */
const WORDS = {
  bandOverlay: ['밸류에이션 밴드', 'Valuation band'],
  none: ['없음', 'None'],
  back: ['← 돌아가기', '← Back'],
  priceChart: ['주가 차트', 'Price chart'],
  rowHint: ['행을 누르면 그 종목의 스냅샷을 엽니다. 열 제목을 누르면 정렬됩니다.', "Click a row to open the stock's snapshot; click a column title to sort."],
  bandAt: ['현재 {type} 기준 가격', 'price at today\'s {type} denominator'],
  noView: ['이 답에는 보기가 없습니다.', 'No view for this answer.'],
} as const;
const say = (key: keyof typeof WORDS, vars: Record<string, string> = {}) =>
  WORDS[key][currentLang() === 'ko' ? 0 : 1].replace(/\{(\w+)\}/g, (_m, name: string) => vars[name] ?? '');

const root = h('main', { id: 'view', class: 'view' });
document.body.append(root);
const app = new App({ name: 'stock-data-view', version: '1.0.0' }, {});
/** What the view shows, newest last: the back button returns to the one before. */
const shown: Picture[] = [];
let disposeChart: (() => void) | null = null;

function applyContext(ctx: McpUiHostContext | undefined): void {
  const theme = ctx?.theme === 'dark' ? 'dark' : 'light';
  applyDocumentTheme(theme);
  document.documentElement.dataset.theme = theme;
  setChartTheme(theme);
  const locale = ctx?.locale ?? navigator.language;
  setLang(locale.toLowerCase().startsWith('ko') ? 'ko' : 'en');
}

function show(picture: Picture): void {
  disposeChart?.();
  disposeChart = null;
  root.replaceChildren();
  root.dataset.kind = picture.kind;
  if (shown.length > 1) root.append(h('button', { type: 'button', class: 'link', id: 'back', onclick: () => back() }, say('back')));
  void render(picture).catch((err: unknown) => root.append(note(`${t('error')}: ${String(err)}`, 'error')));
}

function open(picture: Picture): void {
  shown.push(picture);
  show(picture);
}

function back(): void {
  shown.pop();
  const last = shown.at(-1);
  if (last !== undefined) show(last);
}

/** A tools/call through the host, its answer opened as the next picture. */
async function ask(name: string, args: Record<string, unknown>, status: HTMLElement): Promise<void> {
  status.replaceChildren(note(t('loading')));
  const result = await app.callServerTool({ name, arguments: args });
  const content = result.structuredContent as Record<string, unknown> | null | undefined;
  if (result.isError === true || content === undefined || content === null) {
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
    status.replaceChildren(note(`${t('error')}: ${text}`, 'error'));
    return;
  }
  const picture = pictureOf(name, content);
  if (picture === null) status.replaceChildren(note(say('noView')));
  else open(picture);
}

async function render(picture: Picture): Promise<void> {
  switch (picture.kind) {
    case 'prices':
      return renderPrices(picture.data);
    case 'band':
      return renderBand(picture.data);
    case 'rankings':
      return renderTable(rankingTable(picture.data.rows), picture.data);
    case 'screen':
      return renderTable(screenTable(picture.data.rows, picture.data.fields, picture.data.units), picture.data);
    case 'snapshot':
      return renderSnapshot(picture.data);
    case 'trade':
      return renderTrade(picture.data);
    case 'sectors':
      return renderSectors(picture.data);
  }
}

function title(stock: { name: string; nameEn?: string | null; code: string; market: string; currency: string }, what: string): HTMLElement {
  const name = stockName(stock);
  return h('h2', { id: 'view-title' }, `${name.shown} `, h('span', { class: 'code' }, `${stock.code} · ${stock.market} · ${stock.currency}`), ` — ${what}`);
}

async function renderPrices(data: Extract<Picture, { kind: 'prices' }>['data']): Promise<void> {
  const chartEl = h('div', { class: 'chart', id: 'price-chart' });
  const last = data.bars.at(-1);
  const caption = h(
    'p',
    { class: 'caption', id: 'price-caption', 'data-last-close': last?.close ?? null, 'data-last-date': last?.date ?? null },
    last ? `${data.bars.length} ${t('bars')} · ${t('lastBar')} ${last.date} · ${t('close')} ${price(last.close, data.currency)} · ${t('volume')} ${volume(last.volume)}` : '—',
  );
  const status = h('div', { class: 'band-status' });
  const overlay = h('div', { class: 'segmented', role: 'group', 'data-control': 'band' });
  root.append(title(data, t('priceChart')), chartEl, caption, h('div', { class: 'controls' }, h('span', { class: 'control-label' }, say('bandOverlay')), overlay), status, metaLine(data));
  const chart: PriceChart = await priceChart(chartEl, data.market, data.currency);
  disposeChart = () => chart.dispose();
  chart.setBars(data.bars);
  chartEl.dataset.ready = 'true';
  chartEl.dataset.count = String(data.bars.length);

  // The band of a multiple drawn as prices: the multiple's p5, median and p95 times today's
  // denominator (the last close over today's multiple), one call of get_valuation_band each.
  const choose = async (type: BandType | null) => {
    for (const b of overlay.querySelectorAll('button')) b.setAttribute('aria-pressed', b.dataset.value === (type ?? 'none') ? 'true' : 'false');
    if (type === null || last === undefined) {
      chart.setLevels([]);
      status.replaceChildren();
      return;
    }
    status.replaceChildren(note(t('loading')));
    const result = await app.callServerTool({ name: 'get_valuation_band', arguments: { code: data.code, type } });
    const band = result.structuredContent as Extract<Picture, { kind: 'band' }>['data'] | undefined;
    const multiple = band?.current?.value ?? null;
    if (result.isError === true || band === undefined || multiple === null || multiple <= 0) {
      chart.setLevels([]);
      status.replaceChildren(note(band?.current?.reason ?? band?.reason ?? t('error'), 'error'));
      return;
    }
    const perUnit = last.close / multiple;
    const label = type.toUpperCase();
    const levels = [
      { value: band.p95, name: t('p95'), color: '#9a3412' },
      { value: band.median, name: t('median'), color: '#6b7280' },
      { value: band.p5, name: t('p5'), color: '#166534' },
    ].filter((l): l is typeof l & { value: number } => l.value !== null && l.value > 0);
    chart.setLevels(levels.map((l) => ({ price: l.value * perUnit, title: `${label} ${l.name} ${num(l.value, 1)}x`, color: l.color })));
    status.replaceChildren(h('p', { class: 'hint', id: 'band-levels', 'data-type': type }, `${label} ${say('bandAt', { type: label })}: ${levels.map((l) => `${l.name} ${price(l.value * perUnit, data.currency)}`).join(' · ')}`));
  };
  for (const [value, label] of [['none', say('none')], ['per', 'PER'], ['pbr', 'PBR']] as const) {
    overlay.append(
      h('button', { type: 'button', 'data-value': value, 'aria-pressed': value === 'none' ? 'true' : 'false', onclick: () => void choose(value === 'none' ? null : value).catch((err: unknown) => status.replaceChildren(note(String(err), 'error'))) }, label),
    );
  }
}

async function renderBand(band: Extract<Picture, { kind: 'band' }>['data']): Promise<void> {
  const labels = { p5: t('p5'), median: t('median'), p95: t('p95'), current: t('current') };
  root.append(
    title(band, `${t('valuationBand')} ${band.type.toUpperCase()}`),
    h('div', { id: 'band-chart' }, bandChart(band, labels)),
    h(
      'p',
      { class: 'caption', id: 'band-caption' },
      `${t('current')} ${band.current?.value == null ? '—' : `${num(band.current.value, 2)}x`} · ${t('currentPercentile')} ${band.current?.percentile == null ? '—' : num(band.current.percentile, 0)} · ${t('daysUsed')} ${band.daysUsed} · ${band.from} – ${band.to}`,
    ),
    metaLine(band),
  );
}

/** A table whose column titles sort its rows (the rows the answer holds) and whose rows open the stock's snapshot. */
interface Table {
  columns: { key: string; label: string; numeric: boolean }[];
  rows: { code: string; cells: Record<string, { text: string; sort: number | string | null }> }[];
}

function renderTable(table: Table, meta: { updatedAt: string; source: string; totalCount: number; market: string }): void {
  const status = h('div', { id: 'table-status' });
  let sortKey: string | null = null;
  let ascending = false;
  const body = h('tbody', {});
  const fill = () => {
    const rows = [...table.rows];
    if (sortKey !== null) {
      const key = sortKey;
      rows.sort((a, b) => {
        const x = a.cells[key]?.sort ?? null;
        const y = b.cells[key]?.sort ?? null;
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * (ascending ? 1 : -1);
      });
    }
    body.replaceChildren(
      ...rows.map((row) =>
        h(
          'tr',
          { 'data-code': row.code, class: 'clickable', tabindex: 0, onclick: () => void ask('get_stock_snapshot', { code: row.code }, status).catch((err: unknown) => status.replaceChildren(note(String(err), 'error'))) },
          ...table.columns.map((c) => h('td', { class: c.numeric ? 'num' : null, 'data-col': c.key }, row.cells[c.key]?.text ?? '—')),
        ),
      ),
    );
  };
  const head = h(
    'tr',
    {},
    ...table.columns.map((c) =>
      h(
        'th',
        { class: c.numeric ? 'num' : null, 'data-col': c.key },
        h(
          'button',
          {
            type: 'button',
            'data-sort': c.key,
            onclick: () => {
              ascending = sortKey === c.key ? !ascending : !c.numeric;
              sortKey = c.key;
              for (const th of head.querySelectorAll('th')) th.removeAttribute('aria-sort');
              head.querySelector(`th[data-col="${c.key}"]`)?.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
              fill();
            },
          },
          c.label,
        ),
      ),
    ),
  );
  fill();
  root.append(
    h('h2', { id: 'view-title' }, `${meta.market} · ${t('shownOf', { shown: table.rows.length, total: meta.totalCount })}`),
    h('p', { class: 'hint' }, say('rowHint')),
    h('div', { class: 'table-wrap' }, h('table', { id: 'view-table' }, h('thead', {}, head), body)),
    status,
    metaLine(meta),
  );
}

const text = (value: string) => ({ text: value, sort: value });

function rankingTable(rows: RankingRow[]): Table {
  return {
    columns: [
      { key: 'name', label: t('name'), numeric: false },
      { key: 'marketCap', label: t('marketCap'), numeric: true },
      { key: 'currentPrice', label: t('currentPrice'), numeric: true },
      { key: 'targetPrice', label: t('targetPrice'), numeric: true },
      { key: 'gapPct', label: t('gapPct'), numeric: true },
      { key: 'score', label: t('score'), numeric: true },
    ],
    rows: rows.map((r) => ({
      code: r.ticker,
      cells: {
        name: text(`${stockName(r).shown} (${r.ticker})`),
        marketCap: { text: money(r.marketCap, r.currency), sort: r.marketCap },
        currentPrice: { text: price(r.currentPrice, r.currency), sort: r.currentPrice },
        targetPrice: { text: price(r.targetPrice, r.currency), sort: r.targetPrice },
        gapPct: { text: pct(r.gapPct, 1), sort: r.gapPct },
        score: { text: num(r.score, 1), sort: r.score },
      },
    })),
  };
}

/** Grades sort by their order (A+ first), not as text. */
const GRADES = ['D', 'C', 'C+', 'B', 'B+', 'A', 'A+'];

function screenTable(rows: ScreenRow[], fields: string[], units: Record<string, string>): Table {
  return {
    columns: [{ key: 'name', label: t('name'), numeric: false }, ...fields.map((f) => ({ key: f, label: metricLabel(f), numeric: f !== 'grade' && units[f] !== undefined }))],
    rows: rows.map((r) => ({
      code: r.code,
      cells: {
        name: text(`${stockName(r).shown} (${r.code})`),
        ...Object.fromEntries(
          fields.map((f) => {
            const v = r[f];
            const sort = f === 'grade' && typeof v === 'string' ? GRADES.indexOf(v) : typeof v === 'number' || typeof v === 'string' ? v : null;
            return [f, { text: screenCell(r, f, units[f]), sort }];
          }),
        ),
      },
    })),
  };
}

function renderSnapshot(snapshot: StockSnapshot): void {
  const status = h('div', {});
  root.append(
    title(snapshot, t('snapshot')),
    snapshot.price === null ? '' : h('p', { id: 'snapshot-price' }, `${t('currentPrice')} `, h('strong', {}, price(snapshot.price.close, snapshot.currency)), ` (${snapshot.price.date}) · ${t('marketCap')} ${money(snapshot.price.marketCap, snapshot.currency)}`),
    h('button', { type: 'button', id: 'open-prices', onclick: () => void ask('get_price_history', { code: snapshot.code, interval: 'day', limit: 260 }, status).catch((err: unknown) => status.replaceChildren(note(String(err), 'error'))) }, say('priceChart')),
    status,
    snapshotView(snapshot),
  );
  root.querySelector('.snapshot-grid')?.setAttribute('id', 'snapshot');
}

async function renderTrade(data: Extract<Picture, { kind: 'trade' }>['data']): Promise<void> {
  const chartEl = h('div', { class: 'chart', id: 'trade-chart' });
  const last = data.rows.at(-1);
  root.append(
    h('h2', { id: 'view-title' }, `${t('tradeTotals')} ${data.from} – ${data.to}`),
    chartEl,
    h('p', { class: 'caption', id: 'trade-caption', 'data-last-month': last?.month ?? null }, last ? `${t('latestMonth')} ${last.month} · ${t('exports')} ${money(last.exports, 'USD')} · ${t('imports')} ${money(last.imports, 'USD')} · ${t('balance')} ${money(last.balance, 'USD')}` : '—'),
    metaLine(data),
  );
  disposeChart = await tradeChart(chartEl, data.rows);
  chartEl.dataset.ready = 'true';
}

async function renderSectors(data: Extract<Picture, { kind: 'sectors' }>['data']): Promise<void> {
  const chartEl = h('div', { class: 'chart', id: 'sectors-chart' });
  root.append(
    h('h2', { id: 'view-title' }, `${t('topSectors')} ${data.from} – ${data.to}`),
    chartEl,
    h(
      'ul',
      { class: 'legend', id: 'sectors-legend' },
      ...data.sectors.map((s, i) => h('li', { 'data-sector': s.sector }, h('span', { class: 'swatch', style: `background:${SERIES_COLORS[i % SERIES_COLORS.length] ?? ''}` }), `${s.rank}. ${tDynamic(s.sector)} · ${t('cumulative24m')} ${money(s.cumulative24m, 'USD')}`)),
    ),
    metaLine(data),
  );
  disposeChart = await sectorLinesChart(chartEl, data.sectors.map((s) => ({ sector: s.sector, series: rowsOf<{ month: string; exports: number }>(s.series) })));
  chartEl.dataset.ready = 'true';
}

// Handlers before connect, so the first notifications are not missed.
app.ontoolresult = (result) => {
  const content = result.structuredContent as Record<string, unknown> | null | undefined;
  if (content === undefined || content === null || result.isError === true) {
    root.replaceChildren(note(result.content?.map((c) => (c.type === 'text' ? c.text : '')).join(' ') ?? say('noView'), result.isError === true ? 'error' : 'info'));
    return;
  }
  const picture = pictureOf(app.getHostContext()?.toolInfo?.tool.name, content);
  shown.length = 0;
  if (picture === null) root.replaceChildren(note(say('noView')));
  else open(picture);
};
app.onhostcontextchanged = () => {
  applyContext(app.getHostContext());
  const last = shown.at(-1);
  if (last !== undefined) show(last);
};
applyContext(undefined);
root.append(note(t('loading')));
void app.connect().then(() => applyContext(app.getHostContext()));
