import { computeSnapshot } from '../src/refresh/build.js';
import { loadUniverse } from '../src/refresh/served.js';
import { openSqliteStore } from '../src/store/sqlite.js';
const store = await openSqliteStore(process.argv[2] + '/service.sqlite');
const u = await loadUniverse(store, '2026-11-23');
(globalThis as { __t?: number[] }).__t = [];
for (let i = 0; i < 5; i++) { const t0 = performance.now(); computeSnapshot(u, '2026-11-23'); console.log('compute', Math.round(performance.now() - t0)); }
await store.close();
