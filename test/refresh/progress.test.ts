// The progress board: what each source reports, merged, with an ETA from the rate seen in the
// current phase (or the source's own estimate), times in +09:00, and its JSON read back by
// another process.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgressBoard, readProgress } from '../../src/refresh/progress.js';

function steppedClock(startIso: string): { clock: () => Date; advance: (seconds: number) => void } {
  let ms = Date.parse(startIso);
  return { clock: () => new Date(ms), advance: (s) => void (ms += s * 1000) };
}

describe('ProgressBoard', () => {
  it('estimates the time to done from the rate of the current phase', () => {
    const t = steppedClock('2026-11-25T00:00:00Z');
    const board = new ProgressBoard(t.clock);
    const sink = board.sink('sec');
    sink({ phase: 'reading', unit: 'companies', done: 0, total: 6_000 });
    assert.equal(board.snapshot()[0]?.etaSeconds, null, 'no rate yet');
    t.advance(60);
    sink({ done: 1_500 });
    // 1,500 companies in 60 s = 25 a second; 4,500 left / 25 = 180 s.
    const p = board.snapshot()[0];
    assert.equal(p?.etaSeconds, 180);
    assert.equal(p?.etaAt, '2026-11-25T09:04:00+09:00');
    assert.equal(p?.startedAt, '2026-11-25T09:00:00+09:00');
    assert.equal(p?.updatedAt, '2026-11-25T09:01:00+09:00');
  });

  it('starts the rate afresh on a phase change and keeps the counts it is given', () => {
    const t = steppedClock('2026-11-25T00:00:00Z');
    const board = new ProgressBoard(t.clock);
    const sink = board.sink('opendart');
    sink({ phase: 'downloading', unit: 'files', done: 0, total: 40, bytes: 0 });
    t.advance(100);
    sink({ done: 40, bytes: 123_456 });
    sink({ phase: 'reading', total: 40 });
    const p = board.snapshot()[0];
    assert.equal(p?.phase, 'reading');
    assert.equal(p?.done, 0);
    assert.equal(p?.bytes, 0);
    assert.equal(p?.total, 40);
    assert.equal(p?.etaSeconds, null);
  });

  it("takes a paced source's own estimate and next try, has none when failed, and is 0 when done", () => {
    const t = steppedClock('2026-11-25T14:00:00Z');
    const board = new ProgressBoard(t.clock);
    const sink = board.sink('polygon');
    sink({ phase: 'paced', unit: 'days', done: 300, total: 2_520, callsToday: 300, dailyAllowance: null, etaSeconds: 26_640, nextTryAt: new Date('2026-11-25T15:00:00Z') });
    let p = board.snapshot()[0];
    assert.equal(p?.etaSeconds, 26_640);
    assert.equal(p?.nextTryAt, '2026-11-26T00:00:00+09:00');
    assert.equal(board.active, true);
    sink({ phase: 'failed', nextTryAt: new Date('2026-11-25T15:00:00Z') });
    p = board.snapshot()[0];
    assert.equal(p?.etaSeconds, null, 'a failed source has no time to done, only a next try');
    assert.equal(p?.etaAt, null);
    assert.equal(p?.nextTryAt, '2026-11-26T00:00:00+09:00');
    sink({ phase: 'done', done: 2_520 });
    p = board.snapshot()[0];
    assert.equal(p?.etaSeconds, 0);
    assert.equal(board.active, false);
  });

  it('hands its JSON to persist, and another process reads it back', () => {
    const t = steppedClock('2026-11-25T00:00:00Z');
    const kept: string[] = [];
    const board = new ProgressBoard(t.clock, { persist: (json) => kept.push(json), persistEveryMs: 60_000 });
    board.sink('fsc')({ phase: 'calling', unit: 'days', done: 3, total: 10 });
    board.sink('sec')({ phase: 'downloading', bytes: 1_000 });
    assert.equal(kept.length, 0, 'throttled');
    board.flush();
    assert.equal(kept.length, 1);
    const read = readProgress(kept[0] ?? null);
    assert.deepEqual(read.map((p) => [p.source, p.phase, p.done, p.total]), [['fsc', 'calling', 3, 10], ['sec', 'downloading', 0, null]]);
    assert.deepEqual(readProgress('not json'), []);
    assert.deepEqual(readProgress(null), []);
  });
});
