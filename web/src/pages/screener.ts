// Screener: every stock filtered by market, sectors, bands, exchange and up to three bounds, sorted by the
// server (GET /screen, so the order is over the whole universe, not the fetched page); a column
// title re-asks the server in that order. The query is the URL hash, so a screen is a bookmark.

import { api } from '../api.js';
import { h, loadingNote } from '../dom.js';
import { inUnit, money, num, price, stockName } from '../format.js';
import { currentLang, metricLabel, sectorName, t, tDynamic } from '../i18n.js';
import type { PageContext } from '../page.js';
import { BAND_KEYS, SCREEN_NUMBER_FIELDS, type BandKey, type Currency, type ScreenAnswer, type ScreenRow } from '../types.js';
import { bandChecks, metaLine, section, segmented } from '../widgets.js';

type MarketFilter = 'KR' | 'US' | 'KR,US';
interface Bound {
  field: string;
  min: string;
  max: string;
}
interface ScreenQuery {
  market: MarketFilter;
  bands: BandKey[];
  sectors: string;
  /** One exchange, or '' for every one. */
  exchange: string;
  bounds: Bound[];
  sortField: string;
  order: 'asc' | 'desc';
  limit: number;
}

const LIMITS = [50, 100, 200] as const;
/** The exchanges offered: where KR and US stocks are listed (others, such as CBOE, are asked for by URL). */
const EXCHANGES = ['KOSPI', 'KOSDAQ', 'NYSE', 'NASDAQ'] as const;
const BOUND_ROWS = 3;
/** Shown in every screen beside the bounded and sorted fields. */
const BASE_FIELDS = ['marketCap', 'per', 'roe', 'score', 'grade', 'priceChange3m'];
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;
/** A grade bound's ends are grades. */
const GRADE = /^(A\+|A|B\+|B|C\+|C|D)$/;

const MARKET_STORAGE = 'krus-dashboard.screenMarket';
const isMarket = (m: string | null): m is MarketFilter => m === 'KR' || m === 'US' || m === 'KR,US';

/**
 * The market a screen without one opens on: the last one chosen here, else the page language's
 * own (KR in Korean, US in English). One market, because market cap and price are in each
 * row's currency: KR and US sorted together by amount would set won beside dollars.
 */
function defaultMarket(): MarketFilter {
  const last = localStorage.getItem(MARKET_STORAGE);
  if (isMarket(last)) return last;
  return currentLang() === 'ko' ? 'KR' : 'US';
}

function readQuery(params: URLSearchParams): ScreenQuery {
  const m = params.get('market');
  const market: MarketFilter = isMarket(m) ? m : defaultMarket();
  const given = (params.get('bands') ?? '').split(',');
  const bands = BAND_KEYS.filter((b) => given.includes(b));
  const bounds = (params.get('filters') ?? '')
    .split(',')
    .filter((s) => s !== '')
    .map((s) => {
      const [field = '', min = '', max = ''] = s.split(':');
      return { field, min, max };
    });
  const [sortField = 'marketCap', order = 'desc'] = (params.get('sort') ?? 'marketCap:desc').split(':');
  const l = Number(params.get('limit'));
  return {
    market,
    bands,
    sectors: params.get('sectors') ?? '',
    exchange: params.get('exchanges') ?? '',
    bounds,
    sortField,
    order: order === 'asc' ? 'asc' : 'desc',
    limit: (LIMITS as readonly number[]).includes(l) ? l : 50,
  };
}

const filtersText = (bounds: readonly Bound[]): string =>
  bounds
    .filter((b) => b.field !== '' && (b.min !== '' || b.max !== ''))
    .map((b) => `${b.field}:${b.min}:${b.max}`)
    .join(',');

function hashOf(q: ScreenQuery): string {
  const params = new URLSearchParams({ market: q.market });
  if (q.bands.length > 0) params.set('bands', q.bands.join(','));
  if (q.sectors.trim() !== '') params.set('sectors', q.sectors.trim());
  if (q.exchange !== '') params.set('exchanges', q.exchange);
  const filters = filtersText(q.bounds);
  if (filters !== '') params.set('filters', filters);
  params.set('sort', `${q.sortField}:${q.order}`);
  params.set('limit', String(q.limit));
  return `#/screener?${params.toString()}`;
}

/** The fields the table shows: the bounded ones and the sort field first, then the usual few. */
function fieldsOf(q: ScreenQuery): string[] {
  return [...new Set([...q.bounds.map((b) => b.field).filter((f) => f !== ''), q.sortField, ...BASE_FIELDS])];
}

function fieldSelect(name: string, selected: string, withGrade: boolean, empty: boolean): HTMLSelectElement {
  const options = [...(empty ? [''] : []), ...SCREEN_NUMBER_FIELDS, ...(withGrade ? ['grade'] : [])];
  return h(
    'select',
    { name, 'data-control': name },
    ...options.map((f) => h('option', { value: f, selected: f === selected }, f === '' ? '—' : metricLabel(f))),
  );
}

/** A value in its unit, as the answer's `units` says (currency: the row's own). */
export function cell(row: ScreenRow, field: string, unit: string | undefined): string {
  const value = row[field];
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '—';
  if (unit === 'currency') return field === 'currentPrice' ? price(value, row.currency as Currency) : money(value, row.currency as Currency);
  if (unit === '0..100' || unit === 'score') return num(value, 1);
  return inUnit(value, unit ?? '');
}

export async function renderScreener(ctx: PageContext): Promise<void> {
  const q = readQuery(ctx.params);
  const go = (next: Partial<ScreenQuery>) => {
    if (next.market !== undefined) localStorage.setItem(MARKET_STORAGE, next.market);
    ctx.navigate(hashOf({ ...q, ...next }));
  };

  const marketControl = segmented<MarketFilter>(
    'market',
    [
      { value: 'KR', label: 'KR' },
      { value: 'US', label: 'US' },
      { value: 'KR,US', label: t('both') },
    ],
    q.market,
    (market) => go({ market }),
  );
  const bandBoxes = bandChecks(q.bands, (bands) => go({ bands }));
  const exchanges = q.exchange === '' || (EXCHANGES as readonly string[]).includes(q.exchange) ? EXCHANGES : [...EXCHANGES, q.exchange];
  const exchangeSelect = h(
    'select',
    { id: 'screen-exchange', 'data-control': 'exchange', onchange: () => go({ exchange: exchangeSelect.value }) },
    h('option', { value: '', selected: q.exchange === '' }, t('everyExchange')),
    ...exchanges.map((e) => h('option', { value: e, selected: e === q.exchange }, e)),
  );
  const sectorsInput = h('input', { type: 'text', id: 'screen-sectors', value: q.sectors, placeholder: t('sectorPlaceholder'), size: 28 });
  const boundRows = Array.from({ length: BOUND_ROWS }, (_, i) => {
    const b = q.bounds[i] ?? { field: '', min: '', max: '' };
    return {
      field: fieldSelect(`bound-field-${i}`, b.field, true, true),
      min: h('input', { type: 'text', inputmode: 'decimal', size: 7, 'data-control': `bound-min-${i}`, value: b.min, placeholder: t('min'), 'aria-label': t('min') }),
      max: h('input', { type: 'text', inputmode: 'decimal', size: 7, 'data-control': `bound-max-${i}`, value: b.max, placeholder: t('max'), 'aria-label': t('max') }),
    };
  });
  const sortSelect = fieldSelect('sort-field', q.sortField, true, false);
  const orderControl = segmented<'asc' | 'desc'>(
    'order',
    [
      { value: 'desc', label: t('descending') },
      { value: 'asc', label: t('ascending') },
    ],
    q.order,
    (order) => go({ order }),
  );
  const formError = h('p', { class: 'note error', id: 'screen-form-error', hidden: true });
  const apply = (event: Event) => {
    event.preventDefault();
    const bounds = boundRows.map((r) => ({ field: r.field.value, min: r.min.value.trim(), max: r.max.value.trim() }));
    const ok = (b: Bound, v: string) => v === '' || (b.field === 'grade' ? GRADE.test(v) : NUMBER.test(v));
    const bad = bounds.find((b) => !ok(b, b.min) || !ok(b, b.max));
    if (bad !== undefined) {
      formError.textContent = t('boundNotNumber', { field: metricLabel(bad.field) });
      formError.hidden = false;
      return;
    }
    go({ sectors: sectorsInput.value, bounds, sortField: sortSelect.value });
  };
  const form = h(
    'form',
    { class: 'screen-form', id: 'screen-form', onsubmit: apply as EventListener },
    h('div', { class: 'controls' }, h('span', { class: 'control-label' }, t('market')), marketControl, h('span', { class: 'control-label' }, t('bands')), bandBoxes),
    h(
      'div',
      { class: 'controls' },
      h('label', { class: 'control-label', for: 'screen-exchange' }, t('exchange')),
      exchangeSelect,
      h('label', { class: 'control-label', for: 'screen-sectors' }, t('sector')),
      sectorsInput,
    ),
    ...boundRows.map((r, i) => h('div', { class: 'controls bound', 'data-bound': i }, h('span', { class: 'control-label' }, t('bound')), r.field, r.min, h('span', {}, '–'), r.max)),
    h(
      'div',
      { class: 'controls' },
      h('span', { class: 'control-label' }, t('sortBy')),
      sortSelect,
      orderControl,
      h('span', { class: 'control-label' }, t('rows')),
      segmented(
        'limit',
        LIMITS.map((l) => ({ value: String(l), label: String(l) })),
        String(q.limit),
        (l) => go({ limit: Number(l) }),
      ),
      h('button', { type: 'submit', id: 'screen-apply' }, t('apply')),
    ),
    h('p', { class: 'hint' }, t('screenHint')),
    q.market === 'KR,US' && (q.sortField === 'marketCap' || q.sortField === 'currentPrice') ? h('p', { class: 'hint', id: 'screen-mixed-currency' }, t('mixedCurrency')) : null,
    formError,
  );
  const body = h('div', { class: 'screener-body' });
  ctx.view.append(section(t('navScreener'), 'screener', form, body));

  body.append(loadingNote(t('loading')));
  const fields = fieldsOf(q);
  const filters = filtersText(q.bounds);
  const data = await api<ScreenAnswer>('/screen', {
    market: q.market,
    bands: q.bands.length > 0 ? q.bands.join(',') : undefined,
    sectors: q.sectors.trim() !== '' ? q.sectors.trim() : undefined,
    exchanges: q.exchange !== '' ? q.exchange : undefined,
    filters: filters !== '' ? filters : undefined,
    sort: `${q.sortField}:${q.order}`,
    fields: fields.join(','),
    limit: q.limit,
  });
  if (!ctx.isCurrent()) return;
  const dropped = Object.entries(data.droppedForNull);
  body.replaceChildren(
    h('p', { class: 'count', id: 'screen-count' }, t('shownOf', { shown: data.rows.length, total: data.totalCount })),
    h('p', { class: 'hint', id: 'screen-dropped', hidden: dropped.length === 0 }, `${t('droppedForNull')}: ${dropped.map(([f, n]) => `${metricLabel(f)} ${n}`).join(', ')}`),
    h('p', { class: 'hint' }, t('screenSortHint')),
    screenTable(data, q, go),
    metaLine(data),
  );
}

/** The rows in the server's order; a column title asks the server for that order (a second click flips it). */
function screenTable(data: ScreenAnswer, q: ScreenQuery, go: (next: Partial<ScreenQuery>) => void): HTMLElement {
  const sortable = new Set<string>([...SCREEN_NUMBER_FIELDS, 'grade']);
  const head = (key: string, label: string, numeric: boolean) => {
    const sorted = key === q.sortField;
    return h(
      'th',
      { scope: 'col', class: numeric ? 'num' : null, 'data-sort': key, 'aria-sort': sorted ? (q.order === 'asc' ? 'ascending' : 'descending') : 'none' },
      sortable.has(key)
        ? h('button', { type: 'button', onclick: () => go(sorted ? { order: q.order === 'asc' ? 'desc' : 'asc' } : { sortField: key, order: 'desc' }) }, label)
        : label,
    );
  };
  const heads = [
    head('code', t('ticker'), false),
    head('name', t('name'), false),
    head('market', t('market'), false),
    head('sector', t('sector'), false),
    head('band', t('band'), false),
    ...data.fields.map((f) => head(f, metricLabel(f), f !== 'grade')),
  ];
  const rows = data.rows.map((row) => {
    const { shown, other } = stockName(row);
    return h(
      'tr',
      { 'data-code': row.code, 'data-market': row.market },
      h('td', { 'data-col': 'code' }, h('a', { href: `#/stock/${encodeURIComponent(row.code)}`, class: 'ticker' }, row.code)),
      h('td', { 'data-col': 'name' }, h('span', { class: 'stock-name', title: other, lang: shown === row.name && row.market === 'KR' ? 'ko' : null }, shown)),
      h('td', { 'data-col': 'market' }, row.market),
      h('td', { 'data-col': 'sector', title: sectorName(row.sector, row.sectorKo) === row.sector ? null : row.sector }, sectorName(row.sector, row.sectorKo)),
      h('td', { 'data-col': 'band' }, row.band === null ? '—' : tDynamic(`band_${row.band}`)),
      ...data.fields.map((f) => h('td', { class: f === 'grade' ? null : 'num', 'data-col': f }, cell(row, f, data.units[f]))),
    );
  });
  return h('div', { class: 'table-wrap' }, h('table', { class: 'screen', id: 'screen-table' }, h('thead', {}, h('tr', {}, ...heads)), h('tbody', {}, ...rows)));
}
