// MCP prompts for the common jobs. Each names the tools it uses, read from the one registry,
// so a prompt never points at a tool the server does not have (search_stocks is used where it
// is registered; without it the prompt asks for a code instead).

import type { ToolDefinition } from '../tools/tool.js';
import type { CompletionKind } from './mcp-templates.js';

export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings (MCP); each is described for the client's form, and completed as `complete` says (mcp-templates.ts). */
  args: Record<string, { description: string; optional?: boolean; complete?: CompletionKind }>;
  /** The tools the prompt's text tells the assistant to call, in order. */
  tools: string[];
  text(args: Record<string, string | undefined>): string;
}

const FIND = 'search_stocks';

/** The prompts, built over the tools that `has` says are registered. */
export function buildPrompts(tools: readonly ToolDefinition[]): McpPrompt[] {
  const has = (name: string) => tools.some((t) => t.name === name);
  const canSearch = has(FIND);
  const findStep = (what: string) =>
    canSearch
      ? `If ${what} is not already a 6-digit KR code or a US ticker, call ${FIND} with q set to it and use the best match's code (say which company you picked when several match).`
      : `The tools take a 6-digit KR code or a US ticker; if ${what} is a company name, ask the user for its code.`;
  const prompts: McpPrompt[] = [
    {
      name: 'explain_stock',
      title: 'Look up and explain one stock',
      description: 'Find a stock by name or code and explain its figures: snapshot, V3 score and grade, and where its valuation sits in its own history.',
      args: { stock: { description: 'Company name (Korean or English) or code; in the demo universe e.g. 성산전자, Seongsan Electronics, 390510, Fenix Airlines, FENI', complete: 'code' } },
      tools: [...(canSearch ? [FIND] : []), 'get_stock_snapshot', 'get_stock_score', 'get_valuation_band'],
      text: ({ stock }) =>
        [
          `Look up the stock "${stock ?? ''}" with the stock-data tools and explain it to me.`,
          '',
          `1. ${findStep(`"${stock ?? ''}"`)}`,
          '2. Call get_stock_snapshot with the code: price, market cap, TTM figures and the metrics, each with its unit and reference quarter.',
          '3. Call get_stock_score with the code: the V3 score, its percentile in the market (score) and grade, and the inputs behind them.',
          '4. Call get_valuation_band with the code (type per, then pbr if PER is null): where the current multiple sits in its own history.',
          '',
          'Explain in plain words what the numbers say, quote the units and the as-of dates (updatedAt, referenceQuarter), and name any figure that is null with its reason.',
          'The formula is in the resource stock-data://formula/v3 and the metric definitions in stock-data://metrics. This is information, not investment advice.',
        ].join('\n'),
    },
    {
      name: 'compare_stocks',
      title: 'Compare stocks',
      description: 'Put two or more stocks side by side: V3 score and grade, valuation and profitability, and their percentiles in their sectors.',
      args: { codes: { description: 'Codes or names separated by commas; in the demo universe e.g. 390510, 화성식품, FENI', complete: 'codes' } },
      tools: [...(canSearch ? [FIND] : []), 'get_stock_score', 'get_stock_snapshot', 'get_sector_percentile'],
      text: ({ codes }) =>
        [
          `Compare these stocks with the stock-data tools: ${codes ?? ''}.`,
          '',
          `1. For each one: ${findStep('it')}`,
          '2. For each code call get_stock_score (V3 score, percentile score, grade) and get_stock_snapshot (market cap, PER, PBR, ROE, margins, growth).',
          '3. For each code call get_sector_percentile (cohort sector) to see where each metric ranks among its sector peers.',
          '',
          'Answer with one table (a row per stock, with currency and units) and a short comparison. KR figures are in KRW and US figures in USD; ttmNiEok is on one scale for both.',
          'Definitions: stock-data://metrics; formula: stock-data://formula/v3. This is information, not investment advice.',
        ].join('\n'),
    },
    {
      name: 'korea_export_brief',
      title: "Brief on Korea's export trend",
      description: "Summarise Korea's export trend: the total over recent months with year-on-year change, and which sectors lead and lag.",
      args: { months: { description: 'How many recent months to cover (default 12)', optional: true } },
      tools: ['get_trade_total', 'get_sector_exports'],
      text: ({ months }) => {
        const n = months !== undefined && /^\d{1,3}$/.test(months.trim()) ? Number(months.trim()) : 12;
        return [
          `Brief me on Korea's export trend over the last ${n} months with the stock-data tools.`,
          '',
          `1. Call get_trade_total with from set to the month ${n - 1} months before the latest one (call it once without arguments first to see the latest month): exports, imports and balance per month with year-on-year changes.`,
          '2. Call get_sector_exports over the same window (top 10): which sectors carry the exports and how each moved year on year.',
          '',
          'Write a short brief: the direction and size of the change, the months that stand out, the leading and lagging sectors, and the latest month covered. Amounts are in US dollars as the customs statistics give them.',
        ].join('\n');
      },
    },
    ...(has('screen_stocks') ? [screenPrompt()] : []),
  ];
  for (const prompt of prompts) {
    const missing = prompt.tools.filter((name) => !has(name));
    if (missing.length > 0) throw new Error(`prompt ${prompt.name} names tools that are not registered: ${missing.join(', ')}`);
  }
  return prompts;
}

/** A request in words (Korean or English) turned into one screen_stocks call and a short explanation. */
function screenPrompt(): McpPrompt {
  return {
    name: 'screen_stocks',
    title: 'Screen stocks',
    description: 'Turn a request in Korean or English ("코스피 반도체 중 ROE 15% 이상, PER 10 이하", "US large caps with the highest FCF yield") into one screen over every stock, and explain the result.',
    args: { request: { description: 'What to find, in Korean or English, such as 시가총액 1조 이상 중 영업이익률 높은 순 or US stocks with revenue growth above 20 % and PER under 30' } },
    tools: ['screen_stocks', 'get_stock_score'],
    text: ({ request }) =>
      [
        `Find stocks for this request with the stock-data tools: "${request ?? ''}"`,
        '',
        '1. Read the resource stock-data://screen-fields for the fields and their units, and stock-data://sectors for the sector names (English, each with its Korean name: Semiconductors 반도체, Banks 은행; screen_stocks takes either).',
        '2. Turn the request into one screen_stocks call: market (KR for 한국/국내/코스피/코스닥, US for 미국; KR,US when unsaid); sectors; bands for size words (대형주/large caps = mega,xlarge,large; 중소형주/small caps = mid,small);' +
          ' filters as {field, min, max} in the field unit (ROE 15% 이상 = {field: roe, min: 15}; PER 10 이하 = {field: per, max: 10}; 영업이익률 = operatingMargin, 매출 성장률 = revenueYoy, 부채비율 = netDebtRatio, 배당 is not served);' +
          ' sort by what the request ranks on (높은 순/highest = desc, 낮은 순/cheapest = asc); fields = the bounded and sorted fields plus marketCap; limit 20 unless a number is asked.',
        '3. An exchange goes in exchanges (코스피 = KOSPI, 코스닥 = KOSDAQ; NYSE, NASDAQ). If a term has no field (dividends, a theme), say so and screen with what there is rather than guess.',
        '4. Optionally, for the top three rows, call get_stock_score with their code for the grade and the inputs behind it.',
        '',
        'Answer with: the screen as you ran it (each filter in words with its unit), how many stocks passed (totalCount) and how many were left out for lacking a value (droppedForNull), then a table of the rows (name, code, market, the fields with units; KR amounts in KRW, US in USD), and one or two sentences on what stands out.',
        'Answer in the language of the request. The figures are computed from reported filings as disclosed (point in time); this is information, not investment advice.',
      ].join('\n'),
  };
}
