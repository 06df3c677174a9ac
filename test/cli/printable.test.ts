// Names and reasons from archives and upstreams reach the terminal with their control characters
// written as escapes (src/cli/printable.ts), and a run still running says which process runs it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable } from '../../src/cli/printable.js';
import { formatSourceRuns } from '../../src/cli/sources.js';

describe('printable', () => {
  it('escapes C0 and C1 controls, DEL and bidirectional marks; keeps Korean, spaces and punctuation', () => {
    assert.equal(printable('\u001b[2J\u0000a\tb\nc\u007f\u009b\u202eexe.txt'), '\\x1b[2J\\x00a\\x09b\\x0ac\\x7f\\x9b\\u202eexe.txt');
    assert.equal(printable('2016_1분기보고서_02_손익계산서 (연결).txt'), '2016_1분기보고서_02_손익계산서 (연결).txt');
  });

  it('a source run: the examples of its skips printed escaped; a running run names its process', () => {
    const failed = JSON.stringify([{ source: 'opendart', ok: false, at: 'x', records: 0, error: 'nothing read', skipped: { 'member with an unknown name': 1 }, skippedExamples: ['a.zip: \u001b]0;owned\u0007'] }]);
    const out = formatSourceRuns([
      { id: 2, startedAt: '2026-11-25T00:00:00.000Z', finishedAt: null, status: 'running', detail: JSON.stringify({ running: { host: 'h', pid: 4242 } }) },
      { id: 1, startedAt: '2026-11-24T00:00:00.000Z', finishedAt: '2026-11-24T00:01:00.000Z', status: 'failed', detail: failed },
    ]);
    assert.ok(!out.includes('\u001b') && !out.includes('\u0007'));
    assert.match(out, /^run 2 {2}\S+ {2}running \(not finished\)\n {2}\(running in process 4242\)\n/);
    assert.ok(out.includes('e.g. a.zip: \\x1b]0;owned\\x07'), out);
  });
});
