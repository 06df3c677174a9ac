// The CLI's commands that write (refresh, backfill, import) and the others load no serving code:
// the static import graph of src/cli/main.ts reaches nothing under src/serving/ or of the HTTP
// server (only `serve` loads src/app.ts, by a dynamic import). `import type` lines are erased
// (verbatimModuleSyntax); every other import line loads its module, so each counts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

/** The project's own modules `file` loads when it is loaded (static imports and re-exports, not `import type`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm)) {
    found.push(resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')));
  }
  return found;
}

function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...staticImports(file));
  }
  return new Set([...seen].map((f) => relative(root, f)));
}

describe('the CLI loads no serving code to write', () => {
  it('src/cli/main.ts reaches no src/serving/ module, nor app.ts or the HTTP server', () => {
    const files = reachable(join(root, 'src/cli/main.ts'));
    // The walk follows what it should: the writer and the composition's factories are in it.
    for (const expected of ['src/compose.ts', 'src/refresh/pipeline.ts', 'src/refresh/import.ts', 'src/store/store.ts']) assert.ok(files.has(expected), `${expected} reached`);
    const serving = [...files].filter((f) => f.startsWith('src/serving/') || f === 'src/app.ts' || (f.startsWith('src/http/') && f !== 'src/http/loopback.ts'));
    assert.deepEqual(serving, []);
  });

  it('the walk sees a serving module where one is imported (app.ts reaches the publisher)', () => {
    const files = reachable(join(root, 'src/app.ts'));
    assert.ok(files.has('src/serving/publisher.ts') && files.has('src/http/server.ts'));
  });
});
