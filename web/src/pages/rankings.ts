// Rankings: market and band filters, every field of a rankings row in a sortable table, the
// formula, the disclaimer, and when and from where the data came.

import { api } from '../api.js';
import { h, loadingNote, note } from '../dom.js';
import { eok, money, num, pct, price, stockName } from '../format.js';
import { DISCLAIMER_KO, FORMULA_KO, currentLang, t, tDynamic, type LabelKey } from '../i18n.js';
import type { PageContext } from '../page.js';
import { BAND_KEYS, type BandKey, type RankingRow, type Rankings } from '../types.js';
import { bandChecks, metaLine, section, segmented } from '../widgets.js';

type MarketFilter = 'KR' | 'US' | 'KR,US';
type SortKey = keyof RankingRow | 'rank';

interface Column {
  key: SortKey;
  label: LabelKey;
  numeric: boolean;
  cell(row: RankingRow, rank: number): Node | string;
}

const COLUMNS: Column[] = [
  { key: 'rank', label: 'rank', numeric: true, cell: (_r, rank) => String(rank) },
  { key: 'ticker', label: 'ticker', numeric: false, cell: (r) => h('a', { href: `#/stock/${encodeURIComponent(r.ticker)}`, class: 'ticker' }, r.ticker) },
  {
    key: 'name',
    label: 'name',
    numeric: false,
    cell: (r) => {
      const { shown, other } = stockName(r);
      return h('span', { class: 'stock-name', title: other, lang: shown === r.name && r.market === 'KR' ? 'ko' : null }, shown);
    },
  },
  { key: 'market', label: 'market', numeric: false, cell: (r) => r.market },
  { key: 'currency', label: 'currency', numeric: false, cell: (r) => r.currency },
  { key: 'band', label: 'band', numeric: false, cell: (r) => tDynamic(`band_${r.band}`) },
  { key: 'marketCap', label: 'marketCap', numeric: true, cell: (r) => money(r.marketCap, r.currency) },
  { key: 'currentPrice', label: 'currentPrice', numeric: true, cell: (r) => price(r.currentPrice, r.currency) },
  { key: 'targetPrice', label: 'targetPrice', numeric: true, cell: (r) => price(r.targetPrice, r.currency) },
  { key: 'gapPct', label: 'gapPct', numeric: true, cell: (r) => pct(r.gapPct, 2) },
  { key: 'score', label: 'v3Score', numeric: true, cell: (r) => num(r.score, 1) },
  { key: 'yoy', label: 'yoy', numeric: true, cell: (r) => pct(r.yoy) },
  { key: 'ttmNiEok', label: 'ttmNiEok', numeric: true, cell: (r) => eok(r.ttmNiEok) },
  { key: 'supplyPct', label: 'supplyPct', numeric: true, cell: (r) => pct(r.supplyPct) },
  { key: 'momentumPct', label: 'momentumPct', numeric: true, cell: (r) => pct(r.momentumPct) },
];

const LIMITS = [50, 100, 200] as const;

function readFilters(params: URLSearchParams): { market: MarketFilter; bands: BandKey[]; limit: number } {
  const m = params.get('market');
  const market: MarketFilter = m === 'US' || m === 'KR,US' ? m : 'KR';
  const given = (params.get('bands') ?? 'mega,xlarge,large').split(',');
  const bands = BAND_KEYS.filter((b) => given.includes(b));
  const l = Number(params.get('limit'));
  const limit = (LIMITS as readonly number[]).includes(l) ? l : 50;
  return { market, bands, limit };
}

function hashOf(f: { market: MarketFilter; bands: BandKey[]; limit: number }): string {
  return `#/rankings?market=${f.market}&bands=${f.bands.join(',')}&limit=${f.limit}`;
}

export async function renderRankings(ctx: PageContext): Promise<void> {
  const filters = readFilters(ctx.params);
  const go = (next: Partial<typeof filters>) => ctx.navigate(hashOf({ ...filters, ...next }));

  const bandBoxes = bandChecks(filters.bands, (bands) => go({ bands }));
  const controls = h(
    'div',
    { class: 'controls' },
    h('span', { class: 'control-label' }, t('market')),
    segmented<MarketFilter>(
      'market',
      [
        { value: 'KR', label: 'KR' },
        { value: 'US', label: 'US' },
        { value: 'KR,US', label: t('both') },
      ],
      filters.market,
      (market) => go({ market }),
    ),
    h('span', { class: 'control-label' }, t('bands')),
    bandBoxes,
    h('span', { class: 'control-label' }, t('rows')),
    segmented(
      'limit',
      LIMITS.map((l) => ({ value: String(l), label: String(l) })),
      String(filters.limit),
      (l) => go({ limit: Number(l) }),
    ),
  );
  const body = h('div', { class: 'rankings-body' });
  ctx.view.append(section(t('navRankings'), 'rankings', controls, body));

  if (filters.bands.length === 0) {
    body.append(note(t('noBands')));
    return;
  }
  body.append(loadingNote(t('loading')));
  const data = await api<Rankings>('/rankings', { market: filters.market, bands: filters.bands.join(','), limit: filters.limit });
  if (!ctx.isCurrent()) return;
  body.replaceChildren(
    h('p', { class: 'count', id: 'rankings-count' }, t('shownOf', { shown: data.rows.length, total: data.totalCount })),
    h('p', { class: 'hint' }, t('sortHint')),
    h('p', { class: 'hint' }, t('bandThresholds')),
    rankingsTable(data.rows),
    metaLine(data),
  );
  // The API answers the formula and the disclaimer in English; the Korean page shows them in
  // Korean (i18n.ts), the API's text on hover.
  const ko = currentLang() === 'ko';
  ctx.view.append(
    section(
      t('formula'),
      'formula',
      h(
        'dl',
        { class: 'formula' },
        ...(['score', 'expectedReturn', 'targetPrice', 'gap', 'backtest'] as const).flatMap((k) => [
          h('dt', {}, t(`formula_${k}`)),
          h('dd', { 'data-formula': k, title: ko ? data.formula[k] : null }, ko ? FORMULA_KO[k] : data.formula[k]),
        ]),
      ),
      h('p', { class: 'disclaimer', title: ko ? data.disclaimer : null }, h('strong', {}, `${t('disclaimer')}: `), ko ? DISCLAIMER_KO : data.disclaimer),
    ),
  );
}

/** The rows in API order (gapPct descending) with their rank, re-sortable by any column. */
function rankingsTable(rows: RankingRow[]): HTMLElement {
  const ranked = rows.map((row, i) => ({ row, rank: i + 1 }));
  let sortKey: SortKey = 'rank';
  let ascending = true;
  const tbody = h('tbody', {});
  const headCells = COLUMNS.map((col) =>
    h(
      'th',
      { scope: 'col', class: col.numeric ? 'num' : null, 'data-sort': col.key, 'aria-sort': col.key === 'rank' ? 'ascending' : 'none' },
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            // First click on a number sorts highest first, on text A to Z; a second click flips.
            if (sortKey === col.key) ascending = !ascending;
            else ascending = !col.numeric || col.key === 'rank';
            sortKey = col.key;
            for (const th of headCells) th.setAttribute('aria-sort', th.dataset.sort === sortKey ? (ascending ? 'ascending' : 'descending') : 'none');
            draw();
          },
        },
        t(col.label),
      ),
    ),
  );
  const draw = () => {
    const sorted = [...ranked].sort((a, b) => {
      const x = sortKey === 'rank' ? a.rank : a.row[sortKey];
      const y = sortKey === 'rank' ? b.rank : b.row[sortKey];
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return ascending ? order : -order;
    });
    tbody.replaceChildren(
      ...sorted.map(({ row, rank }) =>
        h(
          'tr',
          { 'data-ticker': row.ticker, 'data-market': row.market, 'data-band': row.band },
          ...COLUMNS.map((col) => h('td', { class: col.numeric ? 'num' : null, 'data-col': col.key }, col.cell(row, rank))),
        ),
      ),
    );
  };
  draw();
  return h('div', { class: 'table-wrap' }, h('table', { class: 'rankings', id: 'rankings-table' }, h('thead', {}, h('tr', {}, ...headCells)), tbody));
}
