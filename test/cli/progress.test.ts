// The progress the CLI prints: the numbers' formats, a source's plain line, when plain lines are
// printed (every phase change; while moving, at most every 5 s), the `sources` section, and the
// bars on a terminal (cli-progress).

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { barProgress, formatBytes, formatCount, formatDuration, plainProgress, progressLine } from '../../src/cli/progress.js';
import { formatProgress } from '../../src/cli/sources.js';
import { ProgressBoard, type SourceProgress } from '../../src/refresh/progress.js';

const base: SourceProgress = {
  source: 'opendart',
  phase: 'reading',
  unit: 'files',
  done: 12,
  total: 120,
  bytes: 45_300_000,
  callsToday: 0,
  dailyAllowance: null,
  startedAt: '2026-11-25T10:00:00+09:00',
  updatedAt: '2026-11-25T10:01:00+09:00',
  etaSeconds: 200,
  etaAt: '2026-11-25T10:04:20+09:00',
  nextTryAt: null,
  note: null,
};

describe('CLI progress', () => {
  it('formats bytes, durations and counts', () => {
    assert.deepEqual([formatBytes(0), formatBytes(999), formatBytes(1_000), formatBytes(45_300_000), formatBytes(1_412_000_000)], ['0 B', '999 B', '1.0 kB', '45.3 MB', '1.4 GB']);
    // 200 s = 3 min 20 s; 7,500 s = 2 h 5 min (0 s dropped); null: not known.
    assert.deepEqual([formatDuration(45), formatDuration(200), formatDuration(7_500), formatDuration(null)], ['45s', '3m20s', '2h05m', '?']);
    assert.deepEqual([formatCount(base), formatCount({ ...base, done: 2_500, total: null, unit: 'companies' })], ['12/120 files', '2,500 companies']);
  });

  it('writes a line per source: phase, done / total, bytes, calls of the allowance, ETA as a duration and a +09:00 time', () => {
    assert.equal(progressLine(base), 'opendart   reading      12/120 files  45.3 MB  ETA 3m20s (2026-11-25T10:04:20+09:00)');
    const paced = { ...base, source: 'opendart', phase: 'paced' as const, unit: 'calls', done: 20_000, total: 41_000, bytes: 0, callsToday: 20_000, dailyAllowance: 20_000, etaSeconds: 50_400, etaAt: '2026-11-26T00:00:00+09:00', nextTryAt: '2026-11-26T00:00:00+09:00', note: 'out of the day\'s allowance' };
    assert.equal(
      progressLine(paced),
      'opendart   paced        20,000/41,000 calls  calls today 20,000/20,000  ETA 14h00m (2026-11-26T00:00:00+09:00)  next try 2026-11-26T00:00:00+09:00  out of the day\'s allowance',
    );
    assert.equal(progressLine({ ...base, phase: 'done', done: 120 }), 'opendart   done         120/120 files  45.3 MB');
  });

  it('prints plain lines on every phase change and, while a source moves, at most every 5 s', () => {
    let now = 0;
    const out: string[] = [];
    const board = new ProgressBoard(() => new Date(Date.UTC(2026, 10, 25, 1, 0, now / 1000)));
    const view = plainProgress((l) => out.push(l), () => now);
    board.subscribe((p) => view.update([p]));
    const sink = board.sink('sec');
    sink({ phase: 'downloading', unit: 'files', done: 0, total: 2 }); // a phase: printed (t = 0)
    now = 1_000;
    sink({ done: 1 }); // 1 s later: not printed
    now = 5_000;
    sink({ bytes: 1_000 }); // 5 s after the last line: printed
    now = 6_000;
    sink({ phase: 'reading', unit: 'members', done: 0, total: null }); // a phase: printed at once
    sink({ done: 3 }); // same instant: not printed
    assert.deepEqual(
      out.map((l) => l.split('  ').filter(Boolean).slice(0, 3).join(' | ')),
      ['sec | downloading | 0/2 files', 'sec | downloading | 1/2 files', 'sec | reading | 0 members'],
    );
  });

  it('puts the board the service persisted above the runs in `sources`', () => {
    assert.equal(formatProgress([]), '');
    assert.equal(
      formatProgress([base, { ...base, source: 'sec', phase: 'done', updatedAt: '2026-11-25T10:02:00+09:00', etaSeconds: 0, etaAt: null, bytes: 0 }]),
      'progress (as of 2026-11-25T10:02:00+09:00)\n' +
        '  opendart   reading      12/120 files  45.3 MB  ETA 3m20s (2026-11-25T10:04:20+09:00)\n' +
        '  sec        done         12/120 files\n\n',
    );
  });

  it('draws a bar per source on a terminal', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 160, rows: 40, cursorTo: () => true, moveCursor: () => true, clearLine: () => true, clearScreenDown: () => true }) as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (c: Buffer) => (written += c.toString()));
    const bars = barProgress(stream);
    bars.update([base, { ...base, source: 'sec', phase: 'downloading', done: 1, total: 2, bytes: 1_412_000_000, etaSeconds: 65 }]);
    bars.stop([base, { ...base, source: 'sec', phase: 'done', done: 2, total: 2, bytes: 1_412_000_000, etaSeconds: 0 }]);
    assert.match(written, /opendart +reading +\|[^|]*\| 12\/120 files 45\.3 MB ETA 3m20s/);
    assert.match(written, /sec +done +\|[^|]*\| 2\/2 files 1\.4 GB ETA -/);
  });
});
