// HEAP_GROWTH_PERCENT: how far the service lets V8's heap grow past what its last full collection
// kept (src/runtime/heap.ts). Its effect on memory is measured by the bench (docs/performance.md,
// "What dominates each cost"); here, the setting itself: its default, its range, and a service
// that refuses a bad one at start.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { setHeapGrowth } from '../../src/runtime/heap.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);

describe('HEAP_GROWTH_PERCENT', () => {
  it('defaults to 60 (the next full collection once the heap is 1.6x what the last one kept), takes 0 to 300, and refuses the rest', () => {
    assert.equal(loadConfig({}).HEAP_GROWTH_PERCENT, 60);
    assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).HEAP_GROWTH_PERCENT, 0);
    assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '300' }).HEAP_GROWTH_PERCENT, 300);
    for (const bad of ['301', '-1', '12.5', 'lots']) {
      assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: bad }), /invalid configuration: HEAP_GROWTH_PERCENT/, bad);
    }
  });

  it('setHeapGrowth takes whole percents, 0 leaving V8 its own choice', () => {
    assert.doesNotThrow(() => setHeapGrowth(0));
    assert.throws(() => setHeapGrowth(-1), /whole percent/);
    assert.throws(() => setHeapGrowth(2.5), /whole percent/);
  });

  it('a service started with a bad one stops at once and says which setting', async () => {
    const tmp = tempDir();
    try {
      const failed = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
        env: { ...process.env, DATA_DIR: tmp.dir, PORT: '0', HEAP_GROWTH_PERCENT: '1000', REFRESH_SCHEDULE: 'off' },
        timeout: 60_000,
      }).then(
        () => null,
        (err: { code?: number; stderr?: string; stdout?: string }) => err,
      );
      assert.ok(failed !== null, 'the service did not start');
      assert.notEqual(failed.code, 0);
      assert.match(`${failed.stderr ?? ''}${failed.stdout ?? ''}`, /invalid configuration: HEAP_GROWTH_PERCENT/);
    } finally {
      tmp.cleanup();
    }
  });
});
