// One scenario of the end-to-end test: a fresh data directory, the loopback upstream, the real
// service (startApp: store, refresh pipeline, REST server on port 0) with real adapters pointed
// at the upstream, a fixed clock, and one refresh through the pipeline at start-up.

import pino from 'pino';
import { createKey, openStore, startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { configuredSources } from '../../src/sources/index.js';
import type { Source } from '../../src/sources/source.js';
import { tempDir } from '../support/tmp.js';
import { startUpstream, type Upstream, type UpstreamFaults } from './upstream.js';

export interface Scenario {
  app: App;
  upstream: Upstream;
  clock: { now: Date };
  /** The paid API key the scenario made (for a second door). */
  key: string;
  get(path: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export interface ScenarioOptions {
  /** The fixed clock (an ISO instant; the service's date is its Asia/Seoul day). */
  at: string;
  /** Adapters constructed with the loopback's base URL... */
  sources?: (base: string) => Source[];
  /** ...or the environment given to `configuredSources`, as `npm start` would read it. */
  env?: (base: string) => Record<string, string>;
  /** Where earlier runs left off (`cursor:<source>` meta), written before the service starts. */
  cursors?: Record<string, string>;
  /** Faults of the upstream (the object stays live: a test may flip them between refreshes). */
  faults?: UpstreamFaults;
}

/** Dummy credentials: the loopback checks none. */
export const DUMMY = {
  dartKey: 'e2e0000000000000000000000000000000000000',
  dataGoKrKey: 'e2eDataGoKrKey',
  polygonKey: 'e2ePolygonKey',
  secUserAgent: 'e2e-test admin@example.com',
};

export async function startScenario(options: ScenarioOptions): Promise<Scenario> {
  const upstream = await startUpstream(options.faults);
  const tmp = tempDir('e2e-real-');
  const clock = { now: new Date(options.at) };
  let app: App | null = null;
  try {
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'silent', PAID_BURST_PER_SECOND: '100000' });
    if (options.cursors) {
      const store = await openStore(config);
      for (const [source, cursor] of Object.entries(options.cursors)) await store.refresh.setMeta(`cursor:${source}`, cursor);
      await store.close();
    }
    const sources = options.sources ? options.sources(upstream.base) : configuredSources(options.env?.(upstream.base) ?? {});
    app = await startApp(config, { clock: () => clock.now, logger: pino({ level: 'silent' }), sources });
    await app.ready;
    const key = await createKey(app.store.access, 'paid', 'e2e', () => clock.now);
    const started = app;
    return {
      app: started,
      upstream,
      clock,
      key,
      async get(path: string) {
        const res = await fetch(`${started.url}/api/public/v2${path}`, { headers: { authorization: `Bearer ${key}` } });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
      },
      async close() {
        await started.close();
        await upstream.close();
        tmp.cleanup();
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await upstream.close();
    tmp.cleanup();
    throw err;
  }
}
