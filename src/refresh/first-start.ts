// A first start with real sources on an empty store: history from the official bulk files, the
// rest from the APIs, in the order placement needs.
//
// 1. At once, side by side: the bulk import (downloads, then batches stored as they are read;
//    each DART and SEC batch brings the placement of its companies with their filings) and an
//    API refresh of the sources that need nothing placed first (FSC prices place KR stocks
//    themselves; FX, trade, KRX flows after FSC in the same run). Their versions are served as
//    they come: KR stocks with prices first, their filings as the import brings them.
// 2. Then the cursors of the bulk-covered sources (OpenDART, SEC) are set where the files end,
//    so their API runs do not fetch again what the files brought (bulk-sources.ts setCursors).
// 3. Then one refresh of every source: the bulk-covered ones take up from those cursors, and the
//    sources whose records need the bulk's placement (Polygon's US bars) run now that it is in.

import type { Logger } from 'pino';
import type { Source } from '../sources/source.js';
import type { Store } from '../store/store.js';
import { AFTER_BULK_SOURCES, BULK_SOURCES, type BulkPlan } from './bulk-sources.js';
import type { Importer, ImportReport } from './import.js';
import type { Refresher, RefreshReport } from './pipeline.js';

export interface FirstStartReport {
  imported: ImportReport;
  /** The API refresh run beside the import (null when no source could run before it). */
  before: RefreshReport | null;
  /** The cursors set from the bulk files. */
  cursors: Record<string, string>;
  /** The refresh of every API source after the import (null when none is configured). */
  after: RefreshReport | null;
}

/** The names of the API sources that can run beside the import (placement not needed from it). */
export function sourcesBeforeBulk(sources: readonly Pick<Source, 'name'>[]): string[] {
  return sources.map((s) => s.name).filter((n) => !BULK_SOURCES.has(n) && !AFTER_BULK_SOURCES.has(n));
}

export async function bulkFirstStart(deps: {
  store: Pick<Store, 'refresh'>;
  refresher: Refresher;
  importer: Importer;
  plan: BulkPlan;
  sources: readonly Pick<Source, 'name'>[];
  logger: Logger;
  signal?: AbortSignal;
  /** What the start-up is doing, for /readyz. */
  onPhase?: (phase: string) => void;
}): Promise<FirstStartReport> {
  const { store, refresher, importer, plan, logger, signal } = deps;
  const early = sourcesBeforeBulk(deps.sources);
  deps.onPhase?.(`first start: bulk files (${plan.inputs.map((i) => i.source).join(', ') || 'none'})${early.length ? ` beside ${early.join(', ')}` : ''}`);
  // Both settle before anything goes on: a stop ends both, and neither writes after this returns.
  const [importing, refreshing] = await Promise.allSettled([
    importer.run(plan.inputs, signal ? { signal } : {}),
    early.length > 0 ? refresher.run(early) : Promise.resolve(null),
  ]);
  if (importing.status === 'rejected') throw importing.reason;
  if (refreshing.status === 'rejected') throw refreshing.reason;
  const imported = importing.value;
  const before = refreshing.value;
  signal?.throwIfAborted();
  const cursors = await plan.setCursors(store.refresh, imported.sources);
  logger.info({ status: imported.status, cursors }, 'first start: bulk import done; API cursors set where the files end');
  if (deps.sources.length === 0) return { imported, before, cursors, after: null };
  deps.onPhase?.('first start: every API source');
  const after = await refresher.run();
  return { imported, before, cursors, after };
}
