// MCP resource templates and completions. A template names a resource by its variables, so a
// client can read a stock's answer without a tool call:
//
//   stock://{market}/{code}/{answer}  the default answer of each per-stock tool (a tool whose REST
//                                     path is /stocks/{code}/...): snapshot, score, valuation-band,
//                                     sector-percentile, price-history; derived from the registry
//   sectors://{market}                the sectors of one market (English and Korean names) with their number of stocks
//   sectors://{market}/{sector}       screen_stocks' default answer for one sector of one market
//
// A read is the tool's answer to its MCP default arguments, through the same runner and response
// cache as a tools/call (the text is the tool's JSON), and is metered as that tool's call
// (mcp/admission.ts, `templateToolOf`); sectors://{market} is free, as stock-data://sectors is.
//
// Completions (completion/complete) of `market`, `code` and `sector`, for the templates' variables
// and the prompts' arguments, are answered from the served dataset in memory: a code as
// search_stocks matches it (code, Korean name, Korean initials, English name; best first), a
// sector by prefix then substring of its English or Korean name (a Korean value completes to the Korean name). The SDK sends the first 100 values with the total.

import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, UriTemplate, type CacheHint, type McpServer, type ReadResourceResult, type ServerContext } from '@modelcontextprotocol/server';
import type { Market } from '../domain/model.js';
import { searchKey } from '../domain/search.js';
import { sectorFromEither, sectorKo } from '../domain/sectors.js';
import { ApiError } from '../kernel/errors.js';
import { normaliseCode, type ServedDataset } from '../serving/dataset.js';
import { parseArgs } from '../tools/params.js';
import { MAX_QUERY_LENGTH } from '../tools/search-stocks.js';
import type { ToolDefinition } from '../tools/tool.js';
import { MCP_ERRORS } from './mcp-errors.js';

/** What a completion completes: a market, a stock code, the last code of a comma-separated list, a sector. */
export type CompletionKind = 'market' | 'code' | 'codes' | 'sector';

type Complete = (value: string, context?: { arguments?: Record<string, string> }) => string[];
type Variables = Record<string, string | string[]>;

export interface McpTemplate {
  name: string;
  title: string;
  description: string;
  uriTemplate: string;
  /** The tool whose answer a read is (and whose call it is metered as); null for the sector list. */
  tool: string | null;
  /** Each variable's completion. */
  variables: Record<string, CompletionKind>;
}

const MARKETS: readonly Market[] = ['KR', 'US'];
const SCREEN = 'screen_stocks';
const PER_STOCK_PATH = /^\/stocks\/\{code\}\/([a-z-]+)$/;

/** The per-stock answers' names in a URI: the REST path's last segment, where it is not the answer's own name. */
const ANSWER_NAMES: Readonly<Record<string, string>> = { prices: 'price-history', percentile: 'sector-percentile' };

/** The templates over `tools` (the registry): one per per-stock tool, the sector list, and a sector's screen when screen_stocks is registered. */
export function buildTemplates(tools: readonly ToolDefinition[]): McpTemplate[] {
  const perStock = tools.flatMap((tool): McpTemplate[] => {
    const segment = PER_STOCK_PATH.exec(tool.path)?.[1];
    if (segment === undefined) return [];
    const answer = ANSWER_NAMES[segment] ?? segment;
    return [
      {
        name: `stock-${answer}`,
        title: `${tool.title} (default arguments)`,
        description: `${tool.name}'s answer for one stock at its default arguments, as JSON (the tool's structuredContent). market is KR or US, code a 6-digit KR code or a US ticker. Read as a call of ${tool.name}.`,
        uriTemplate: `stock://{market}/{code}/${answer}`,
        tool: tool.name,
        variables: { market: 'market', code: 'code' },
      },
    ];
  });
  return [
    ...perStock,
    {
      name: 'sectors-of-market',
      title: 'Sectors of one market',
      description: 'Every sector of the served stocks of one market (KR or US) with its number of stocks, as JSON; stock-data://sectors has both markets.',
      uriTemplate: 'sectors://{market}',
      tool: null,
      variables: { market: 'market' },
    },
    ...(tools.some((t) => t.name === SCREEN)
      ? [
          {
            name: 'sector-screen',
            title: 'Stocks of one sector',
            description: `${SCREEN}'s answer for one sector of one market at its default arguments (largest market cap first), as JSON. Read as a call of ${SCREEN}.`,
            uriTemplate: 'sectors://{market}/{sector}',
            tool: SCREEN,
            variables: { market: 'market', sector: 'sector' },
          } satisfies McpTemplate,
        ]
      : []),
  ];
}

/** The templates' URI matchers, built once. */
const matchers = new Map<string, UriTemplate>();
const matcherOf = (template: McpTemplate): UriTemplate => {
  let matcher = matchers.get(template.uriTemplate);
  if (matcher === undefined) matchers.set(template.uriTemplate, (matcher = new UriTemplate(template.uriTemplate)));
  return matcher;
};

/** The tool a resources/read of `uri` is a call of (mcp/admission.ts meters it as that tool); null for any other URI. */
export function templateToolOf(templates: readonly McpTemplate[], uri: string): string | null {
  if (!uri.startsWith('stock://') && !uri.startsWith('sectors://')) return null;
  for (const template of templates) {
    if (template.tool === null) continue;
    try {
      if (matcherOf(template).match(uri) !== null) return template.tool;
    } catch {
      return null;
    }
  }
  return null;
}

/** One variable of a matched URI, percent-decoded; an undecodable one is refused. */
function variable(variables: Variables, name: string): string {
  const raw = variables[name];
  const value = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${name} is not a valid percent-encoded value`);
  }
}

function marketOf(value: string): Market {
  const market = value.toUpperCase();
  if (market === 'KR' || market === 'US') return market;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: market "${value.slice(0, 20)}" is not KR or US`);
}

/** A failure of a read as the MCP error a client expects: not found (-32002), bad parameter (-32602), data unavailable. */
function readError(err: unknown, uri: string): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.code === 'not_found') return new ResourceNotFoundError(uri, `Resource not found: ${err.detail}`);
  if (err.code === 'invalid_parameter') return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${err.detail}`);
  if (err.code === 'data_unavailable') return new ProtocolError(MCP_ERRORS.dataUnavailable, err.detail, { code: err.code });
  return err;
}

export interface TemplateDeps {
  tools: readonly ToolDefinition[];
  templates: readonly McpTemplate[];
  /** The served dataset; throws data_unavailable while none is. */
  dataset(): ServedDataset;
  /** A tool's answer (its JSON text) to validated arguments, for the read's caller; through the runner and its response cache. */
  answer(tool: ToolDefinition, args: Record<string, unknown>, ctx: ServerContext): Promise<string>;
  /** The cache hint of a read (2026-07-28): until the next refresh. */
  cacheHint: CacheHint;
}

/** The completion of one kind, from the served dataset; nothing while none is served. */
export function completer(kind: CompletionKind, dataset: () => ServedDataset): Complete {
  const served = (): ServedDataset | null => {
    try {
      return dataset();
    } catch {
      return null;
    }
  };
  const contextMarket = (context?: { arguments?: Record<string, string> }): Market | undefined => {
    const market = context?.arguments?.market?.toUpperCase();
    return market === 'KR' || market === 'US' ? market : undefined;
  };
  const codes = (value: string, market: Market | undefined): string[] => {
    const q = value.trim().slice(0, MAX_QUERY_LENGTH);
    const data = served();
    if (data === null || searchKey(q) === '') return [];
    // Every match, best first, so the total is exact; the SDK sends the first 100.
    return data.search({ q, market, limit: Number.MAX_SAFE_INTEGER }).matches.map((m) => m.entry.code);
  };
  switch (kind) {
    case 'market':
      return (value) => MARKETS.filter((m) => m.startsWith(value.trim().toUpperCase()));
    case 'code':
      return (value, context) => codes(value, contextMarket(context));
    case 'codes':
      // The last item of a comma-separated list, the items before it kept as typed.
      return (value) => {
        const cut = value.lastIndexOf(',') + 1;
        const last = value.slice(cut);
        const head = value.slice(0, cut) + (/^\s*/.exec(last)?.[0] ?? '');
        return codes(last, undefined).map((code) => head + code);
      };
    case 'sector':
      return (value, context) => {
        const data = served();
        if (data === null) return [];
        const market = contextMarket(context);
        const key = searchKey(value);
        // Each sector in English and, where it has one, in Korean: a value typed in Korean
        // completes to the Korean name, which every sector filter takes as well.
        const english = [...new Set(data.sectors().filter((s) => market === undefined || s.market === market).map((s) => s.sector))];
        const names = [...english, ...english.map(sectorKo).filter((n): n is string => n !== null)];
        const prefix = names.filter((n) => searchKey(n).startsWith(key));
        return [...prefix, ...names.filter((n) => !prefix.includes(n) && searchKey(n).includes(key))];
      };
  }
}

/** Registers the templates on one request's server, their reads and their variables' completions. */
export function registerTemplates(server: McpServer, deps: TemplateDeps): void {
  const tools = new Map(deps.tools.map((t) => [t.name, t]));
  for (const template of deps.templates) {
    const complete = Object.fromEntries(Object.entries(template.variables).map(([name, kind]) => [name, completer(kind, deps.dataset)]));
    const resource = new ResourceTemplate(template.uriTemplate, { list: undefined, complete });
    const { name, title, description } = template;
    server.registerResource(name, resource, { title, description, mimeType: 'application/json', cacheHint: deps.cacheHint }, async (uri, variables, ctx): Promise<ReadResourceResult> => {
      const href = uri.href;
      try {
        const market = marketOf(variable(variables, 'market'));
        const tool = template.tool === null ? null : tools.get(template.tool);
        let text: string;
        if (tool === undefined) throw new Error(`template ${name}: tool ${template.tool} is not registered`);
        if (tool === null) {
          const data = deps.dataset();
          const sectors = data.sectors().filter((s) => s.market === market).map(({ sector, stocks }) => ({ sector, sectorKo: sectorKo(sector), stocks }));
          text = JSON.stringify({ market, sectors, updatedAt: data.updatedAt, source: data.source }, null, 2);
        } else if ('code' in template.variables) {
          const code = variable(variables, 'code');
          const args = parseArgs(tool.input, { code });
          if (normaliseCode(code).market !== market) throw new ApiError('not_found', `${code} is not a ${market} code`);
          text = await deps.answer(tool, args, ctx);
        } else {
          const sector = sectorFromEither(variable(variables, 'sector'));
          if (!deps.dataset().sectors().some((s) => s.market === market && s.sector === sector)) throw new ApiError('not_found', `no sector "${sector.slice(0, 100)}" in ${market} (see sectors://${market})`);
          text = await deps.answer(tool, parseArgs(tool.input, { market, sectors: [sector] }), ctx);
        }
        return { contents: [{ uri: href, mimeType: 'application/json', text }] };
      } catch (err) {
        throw readError(err, href);
      }
    });
  }
}
