import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpClient } from '../../src/sources/http.js';
import { AllowanceSpent, CallMeter, CallPlan, pacedEtaSeconds } from '../../src/sources/meter.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { loopback } from './helpers.js';

/** A clock the test moves by hand. */
function manualClock(iso: string): { clock: () => Date; set(iso: string): void } {
  let now = new Date(iso);
  return { clock: () => now, set: (t) => void (now = new Date(t)) };
}

describe('CallMeter', () => {
  it('counts calls per Seoul day and refuses the one past the allowance until Seoul midnight', () => {
    // 14:59:59 UTC = 23:59:59 in Seoul on 2026-11-24; the quota day ends at 15:00 UTC.
    const t = manualClock('2026-11-24T14:59:59Z');
    const meter = new CallMeter('opendart', 3, t.clock);
    meter.take();
    meter.take();
    meter.take();
    assert.equal(meter.callsToday, 3);
    assert.equal(meter.remaining(), 0);
    assert.throws(() => meter.take(), (err: unknown) => {
      assert.ok(err instanceof AllowanceSpent);
      assert.equal(err.nextTryAt.toISOString(), '2026-11-24T15:00:00.000Z');
      assert.match(err.message, /allowance of 3 calls is used \(3 made\)/);
      return true;
    });
    assert.equal(meter.callsToday, 3, 'a refused call is not counted');
    t.set('2026-11-24T15:00:00Z'); // 00:00 on 2026-11-25 in Seoul
    assert.deepEqual(meter.state(), { day: '2026-11-25', calls: 0 });
    meter.take();
    assert.equal(meter.callsToday, 1);
  });

  it('restores the count a run reported: only today\'s, and never below its own', () => {
    const t = manualClock('2026-11-24T03:00:00Z'); // 12:00 in Seoul
    const meter = new CallMeter('fsc', 10_000, t.clock);
    meter.restore({ day: '2026-11-23', calls: 9_000 }); // yesterday: spent
    assert.equal(meter.callsToday, 0);
    meter.restore({ day: '2026-11-24', calls: 120 });
    assert.equal(meter.callsToday, 120);
    meter.take();
    meter.restore({ day: '2026-11-24', calls: 100 }); // older report of today: ours (121) stands
    assert.equal(meter.callsToday, 121);
    meter.restore(null);
    assert.equal(meter.remaining(), 10_000 - 121);
  });

  it('spend(): the provider said the allowance is used, whatever was counted', () => {
    const meter = new CallMeter('opendart', 20_000, () => new Date('2026-11-24T03:00:00Z'));
    meter.take();
    meter.spend();
    assert.equal(meter.callsToday, 20_000);
    assert.throws(() => meter.take(), AllowanceSpent);
  });

  it('no daily cap: counts, never refuses', () => {
    const meter = new CallMeter('sec', null, () => new Date('2026-11-24T03:00:00Z'));
    for (let i = 0; i < 5; i++) meter.take();
    assert.equal(meter.callsToday, 5);
    assert.equal(meter.remaining(), null);
  });
});

describe('pacedEtaSeconds', () => {
  it('within the allowance: calls x spacing', () => {
    // 2,700 company.json calls at 5 a second (200 ms): 540 s.
    assert.equal(pacedEtaSeconds({ callsLeft: 2_700, perCallMs: 200, remainingToday: 20_000, dailyAllowance: 20_000, secondsToReset: 3_600 }), 540);
    // No daily cap: 2,520 Polygon days at 12 s: 30,240 s.
    assert.equal(pacedEtaSeconds({ callsLeft: 2_520, perCallMs: 12_000, remainingToday: null, dailyAllowance: null, secondsToReset: 0 }), 30_240);
  });

  it('past the allowance: today\'s calls, the wait to the renewal, whole days, the rest', () => {
    // 25 calls left, 5 today, 10 a day, 1 s apart, renewal in 3,600 s: 20 after today =
    // one full day (10) + 10 on the last day -> max(5, 3,600) + 86,400 + 10 = 90,010.
    assert.equal(pacedEtaSeconds({ callsLeft: 25, perCallMs: 1_000, remainingToday: 5, dailyAllowance: 10, secondsToReset: 3_600 }), 90_010);
    // 8 left, none today, 10 a day: the renewal (120 s) then 8 s.
    assert.equal(pacedEtaSeconds({ callsLeft: 8, perCallMs: 1_000, remainingToday: 0, dailyAllowance: 10, secondsToReset: 120 }), 128);
  });
});

describe('CallPlan', () => {
  it('reports calling with total and ETA, each step, paced with the renewal, done', () => {
    const now = new Date('2026-11-24T14:00:00Z'); // 23:00 in Seoul: renewal in 3,600 s
    const meter = new CallMeter('opendart', 4, () => now);
    const patches: ProgressPatch[] = [];
    const plan = new CallPlan((p) => void patches.push(p), meter, { unit: 'companies', total: 6, callsPerUnit: 1, perCallMs: 200 });
    plan.start();
    meter.take();
    plan.step();
    plan.paced();
    // start: 6 calls, 4 fit today: max(4 x 0.2, 3,600) + 0 full days + 2 x 0.2 = 3,600.4 -> 3,601.
    assert.deepEqual(patches[0], { phase: 'calling', unit: 'companies', done: 0, total: 6, etaSeconds: 3_601, nextTryAt: null, note: null, callsToday: 0, dailyAllowance: 4 });
    // after one: 5 left, 3 today: 3,600 + 2 x 0.2 -> 3,601.
    assert.deepEqual(patches[1], { done: 1, etaSeconds: 3_601, callsToday: 1, dailyAllowance: 4 });
    assert.equal(patches[2]?.phase, 'paced');
    assert.equal(patches[2]?.nextTryAt?.toISOString(), '2026-11-24T15:00:00.000Z');
    assert.match(String(patches[2]?.note), /5 companies left/);
    plan.finish();
    assert.deepEqual(patches[3], { phase: 'done', done: 1, total: 6, etaSeconds: 0, nextTryAt: null, note: null, callsToday: 1, dailyAllowance: 4 });
  });
});

describe('HttpClient with a meter', () => {
  it('counts every request, retries included, and makes none past the allowance', async () => {
    let hits = 0;
    const server = await loopback(() => (++hits === 1 ? { status: 500, body: 'down' } : { body: '{"ok":true}' }));
    try {
      const meter = new CallMeter('test', 2, () => new Date('2026-11-24T03:00:00Z'));
      const http = new HttpClient({ source: 'test', fetch, meter, backoffMs: 1, retries: 2 });
      assert.deepEqual(await http.getJson(`${server.base}/a`), { ok: true });
      // 500 then 200: two calls against the allowance.
      assert.equal(meter.callsToday, 2);
      await assert.rejects(http.getJson(`${server.base}/b`), AllowanceSpent);
      assert.equal(hits, 2, 'no request was sent past the allowance');
    } finally {
      await server.close();
    }
  });
});
