// Two SQLite processes rebuilding the derived forms (src/store/derived.ts) of one file at once:
// each stock is rebuilt once, by one or the other, and the forms end as the records. Each
// process is ./fixtures/rebuild-forms.ts; the universe is test/store/derived-universe.ts.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DerivedForm } from '../../src/store/derived.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { ageForms, assertCurrent, FORMS, writeUniverse } from '../store/derived-universe.js';
import { tempDir } from '../support/tmp.js';

/** A child process that rebuilds the forms of `file` a stock per transaction once told to (./fixtures/rebuild-forms.ts). */
function rebuilder(file: string): { ready: Promise<void>; go: () => void; done: Promise<{ form: DerivedForm; stocks: number }[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'rebuild-forms.ts'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let ready: () => void = () => undefined;
  let result: { form: DerivedForm; stocks: number }[] | null = null;
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line === 'READY') ready();
      if (line.startsWith('DONE ')) result = JSON.parse(line.slice(5)) as { form: DerivedForm; stocks: number }[];
    }
  });
  const done = new Promise<{ form: DerivedForm; stocks: number }[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the rebuilding process took too long'));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && result !== null) resolve(result);
      else reject(new Error(`the rebuilding process exited ${code} without its result`));
    });
  });
  return { ready: new Promise((resolve) => (ready = resolve)), go: () => child.stdin.write('go\n'), done };
}

describe('SQLite derived forms, two processes rebuilding at once', () => {
  it('are rebuilt a stock once, by one or the other, and end as the records', async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, 'db.sqlite');
    const setup = await openSqliteStore(file);
    const ids = await writeUniverse(setup);
    // Both open while the forms are current (nothing to rebuild at open), then the forms age and
    // both start together; each pauses after each batch, so their transactions interleave.
    const children = [rebuilder(file), rebuilder(file)];
    await Promise.all(children.map((c) => c.ready));
    await ageForms(setup, ids);
    await setup.close();
    let store: KyselyStore | null = null;
    try {
      for (const c of children) c.go();
      const results = await Promise.all(children.map((c) => c.done));
      for (const form of FORMS) {
        const stocks = results.flat().filter((r) => r.form === form).reduce((sum, r) => sum + r.stocks, 0);
        assert.equal(stocks, 5, `${form}: each of the 5 stocks rebuilt once`);
      }
      store = await openSqliteStore(file);
      await assertCurrent(store, ids);
    } finally {
      await store?.close();
      tmp.cleanup();
    }
  });
});
