// Loads the embedded demo universe into an empty store: generated stock by stock and written
// in one transaction, so an interrupted first start leaves an empty store, not half a universe.

import type { Dataset } from '../domain/model.js';
import { generateDemo, type DemoOptions } from '../sources/demo/index.js';
import type { Store } from '../store/store.js';

const SECURITIES_PER_PART = 20;

export async function loadDemo(store: Store, options: DemoOptions): Promise<{ securities: number; ms: number }> {
  const started = performance.now();
  const demo = generateDemo(options);
  function* parts(): Generator<Partial<Dataset>> {
    yield { securities: demo.securities, fx: demo.fx, trade: demo.trade, sectorExports: demo.sectorExports };
    for (let i = 0; i < demo.securities.length; i += SECURITIES_PER_PART) {
      const group = demo.securities.slice(i, i + SECURITIES_PER_PART);
      yield {
        bars: group.flatMap((s) => demo.barsFor(s)),
        reports: group.flatMap((s) => demo.reportsFor(s)),
        flows: group.flatMap((s) => demo.flowsFor(s)),
      };
    }
  }
  await store.writeDatasets(parts(), { bulk: true });
  await store.setMeta('demo_as_of', options.asOf);
  return { securities: demo.securities.length, ms: Math.round(performance.now() - started) };
}
