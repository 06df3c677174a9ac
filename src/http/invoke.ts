// Running one tool call, shared by both doors: validated arguments in, serialised result
// out, from the response cache when the dataset version and arguments were seen before.

import type { ServedDataset } from '../serving/dataset.js';
import { ApiError } from '../kernel/errors.js';
import type { DatasetHolder } from '../serving/holder.js';
import type { ProgressEntry } from '../tools/progress.js';
import type { Account, ToolDefinition } from '../tools/tool.js';
import type { Eventually } from './gate.js';
import { jsonBytes } from '../wire/json-bytes.js';
import { ResponseCache, type CachedBody } from './response-cache.js';

export interface ToolOutcome {
  dataset: ServedDataset;
  /** The cache entry itself (shared by later identical calls). */
  entry: CachedBody;
  /** True when the body came from the response cache (REST says so in `X-Cache`). */
  cached: boolean;
}

export class ToolRunner {
  readonly cache = new ResponseCache();

  constructor(
    private readonly holder: DatasetHolder,
    /** Every source's progress now, for health; none without a progress board (the demo). */
    private readonly progress?: () => readonly ProgressEntry[],
  ) {
    holder.onSwap(() => this.cache.clear());
  }

  dataset(): ServedDataset {
    const data = this.holder.current;
    if (data === null) throw new ApiError('data_unavailable', 'the dataset is still loading; try again shortly');
    return data;
  }

  /**
   * `args` must already be validated against the tool's schema. The answer at once when the
   * response cache holds it (a cacheable tool, not `fresh`), a promise when the tool must run.
   * `fresh`: compute the answer even when the cache holds it (a request's `Cache-Control:
   * no-cache`). Its result replaces an entry the cache holds but is not added as a new one: a
   * caller walking the universe with `no-cache` (a screen, the bench) asks for each answer once,
   * and keeping them all only filled the cache (and the process's memory) with answers nobody
   * asked for again. Throws `data_unavailable` (at once) while no dataset is served.
   */
  run(tool: ToolDefinition, args: Record<string, unknown>, account: Account, options: { fresh?: boolean } = {}): Eventually<ToolOutcome> {
    const dataset = this.dataset();
    const fresh = options.fresh === true;
    if (!tool.cacheable) return this.compute(tool, args, account, dataset, null, fresh);
    const key = ResponseCache.key(dataset.version, tool.name, args);
    if (!fresh) {
      const hit = this.cache.get(key);
      if (hit !== undefined) return { dataset, entry: hit, cached: true };
    }
    return this.compute(tool, args, account, dataset, key, fresh);
  }

  private async compute(tool: ToolDefinition, args: Record<string, unknown>, account: Account, dataset: ServedDataset, key: string | null, fresh: boolean): Promise<ToolOutcome> {
    if (key === null) {
      const result = await tool.handler(args, { data: dataset, account, ...(this.progress ? { progress: this.progress } : {}) });
      return { dataset, entry: ResponseCache.entry(jsonBytes(result)), cached: false };
    }
    const body = jsonBytes(await tool.handler(args, { data: dataset, account }));
    const entry = fresh && !this.cache.has(key) ? ResponseCache.entry(body) : this.cache.put(key, body);
    return { dataset, entry, cached: false };
  }
}
