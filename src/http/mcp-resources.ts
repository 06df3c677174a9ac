// MCP resources: what an assistant reads before calling a tool. Each has a stable URI and is
// built from the same constants and the same served dataset the tools answer from, so it
// cannot say something the answers contradict. Reading one is free, like tools/list.

import { seoulIso } from '../kernel/clock.js';
import { PERCENTILE_METRIC_DEFINITIONS } from '../domain/metrics.js';
import { BAND_KEYS, PERCENTILE_METRICS } from '../domain/results.js';
import { DEFAULT_SCREEN_FIELDS, SCREEN_FIELD_DEFINITIONS, SCREEN_TEXT_FIELDS } from '../domain/screen.js';
import { GRADE_BOUNDS } from '../domain/score.js';
import { sectorKo } from '../domain/sectors.js';
import { MARKET_CAP_BANDS, V3_FORMULA } from '../domain/v3.js';
import type { ServedDataset } from '../serving/dataset.js';

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'text/markdown' | 'application/json';
  /** Built from the served data (changes at each refresh), not from constants. */
  fromData: boolean;
  /** The text of the resource; `dataset()` throws data_unavailable while nothing is loaded. */
  read(dataset: () => ServedDataset): string;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

function formulaMarkdown(): string {
  const won = (n: number) => `${n / 1e12} trillion won`;
  const usd = (n: number) => `$${n / 1e9}B`;
  const bands = BAND_KEYS.map((band) =>
    band === 'small'
      ? `| small | below mid | below mid |`
      : `| ${band} | >= ${won(MARKET_CAP_BANDS.KR[band])} | >= ${usd(MARKET_CAP_BANDS.US[band])} |`,
  );
  const grades = [...GRADE_BOUNDS.map((g) => `${g.grade} >= ${g.min}`), 'D below'].join(', ');
  return [
    '# V3 formula',
    '',
    'The rankings and get_stock_score are the output of this published formula; it is information, not investment advice.',
    '',
    `- **Score.** ${V3_FORMULA.score}`,
    `- **Expected return.** ${V3_FORMULA.expectedReturn}`,
    `- **Gap.** ${V3_FORMULA.gap}`,
    `- **Target price.** ${V3_FORMULA.targetPrice}`,
    `- **Backtest.** ${V3_FORMULA.backtest}`,
    '',
    '## get_stock_score',
    '',
    `score (0..100) is the stock's percentile of the V3 score among the stocks of its market that have one. Grades (inclusive lower bounds): ${grades}.`,
    '',
    '## Market-cap bands',
    '',
    'Lower bounds inclusive, in the market\'s own currency (market cap = close x shares). `bands` in get_rankings filters by these keys.',
    '',
    '| band | KR | US |',
    '|---|---|---|',
    ...bands,
    '',
  ].join('\n');
}

export const RESOURCES: readonly McpResource[] = [
  {
    uri: 'stock-data://formula/v3',
    name: 'formula-v3',
    title: 'V3 formula, grades and market-cap bands',
    description: 'How get_rankings and get_stock_score are computed: the V3 score, expected return, gap and target price, the score grades, and the market-cap band bounds per market.',
    mimeType: 'text/markdown',
    fromData: false,
    read: formulaMarkdown,
  },
  {
    uri: 'stock-data://metrics',
    name: 'metrics',
    title: 'The 17 percentile metrics',
    description: 'The metrics get_sector_percentile ranks (and get_stock_snapshot reports): key, name, unit and definition. A percentile ranks the raw value, higher value higher percentile, with no verdict.',
    mimeType: 'application/json',
    fromData: false,
    read: () =>
      json({
        percentile:
          'percentile = 100 x (stocks with a value strictly below) / (cohort stocks with a value - 1); ties share the lowest rank; no verdict (a high PER percentile is not "bad")',
        metrics: PERCENTILE_METRICS.map((key) => ({ key, ...PERCENTILE_METRIC_DEFINITIONS[key] })),
      }),
  },
  {
    uri: 'stock-data://screen-fields',
    name: 'screen-fields',
    title: 'Fields of screen_stocks, with units',
    description: 'Every field screen_stocks can bound, sort by and show: its unit (a bound is in that unit: roe min 10 = 10 %), its definition, and which per-stock tool gives the same value; the text fields; the default fields.',
    mimeType: 'application/json',
    fromData: false,
    read: () =>
      json({
        numeric: SCREEN_FIELD_DEFINITIONS.filter((d) => d.field !== 'grade'),
        grade: SCREEN_FIELD_DEFINITIONS.find((d) => d.field === 'grade'),
        text: {
          every: SCREEN_TEXT_FIELDS,
          note: 'Every row carries these; they cannot be bounded (filter with market, sectors, bands and exchanges).',
        },
        defaultFields: DEFAULT_SCREEN_FIELDS,
        rules: [
          'Bounds combine with AND, both ends inclusive; a stock without a value for a bounded field fails that bound, and droppedForNull says how many, per field.',
          'Sorting puts stocks without a value last in either order; ties go by code, then market (KR first).',
          'marketCap and currentPrice are in the stock currency (KRW for KR, USD for US): bound them one market at a time, or filter by bands across markets.',
        ],
      }),
  },
  {
    uri: 'stock-data://sectors',
    name: 'sectors',
    title: 'Sectors per market',
    description: 'Every sector of the served stocks per market with its Korean name (null for a name outside the service\'s table) and number of stocks: the cohorts of get_sector_percentile (cohort=sector). screen_stocks takes either name.',
    mimeType: 'application/json',
    fromData: true,
    read: (dataset) => {
      const data = dataset();
      const markets: Record<string, { sector: string; sectorKo: string | null; stocks: number }[]> = {};
      for (const { market, sector, stocks } of data.sectors()) (markets[market] ??= []).push({ sector, sectorKo: sectorKo(sector), stocks });
      return json({ updatedAt: data.updatedAt, source: data.source, markets });
    },
  },
  {
    uri: 'stock-data://sources',
    name: 'sources',
    title: 'Data sources and refresh times',
    description: 'Where the served data comes from (`demo` or the real sources), when the served snapshot was computed, when the next refresh is due, and how the last refresh went per source.',
    mimeType: 'application/json',
    fromData: true,
    read: (dataset) => {
      const data = dataset();
      return json({ source: data.source, updatedAt: data.updatedAt, asOf: data.asOf, nextRefreshAt: data.nextRefreshAt === null ? null : seoulIso(data.nextRefreshAt), sources: data.sources });
    },
  },
];
