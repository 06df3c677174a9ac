import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { lastClosedSession, zonedDateTime } from '../../src/domain/session.js';
import { isTradingDay } from '../../src/sources/demo/calendar.js';

const at = (iso: string): Date => new Date(iso);
const last = (market: 'KR' | 'US', iso: string): string => lastClosedSession(market, at(iso), isTradingDay);

void describe('zonedDateTime', () => {
  void it('reads the local date and minute through daylight-saving changes in New York', () => {
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT at 07:00 UTC.
    assert.deepEqual(zonedDateTime(at('2026-03-08T06:59:00Z'), 'America/New_York'), { date: '2026-03-08', minuteOfDay: 1 * 60 + 59 });
    assert.deepEqual(zonedDateTime(at('2026-03-08T07:00:00Z'), 'America/New_York'), { date: '2026-03-08', minuteOfDay: 3 * 60 });
    // 2026-11-01: 02:00 EDT falls back to 01:00 EST at 06:00 UTC, so 01:30 happens twice.
    assert.deepEqual(zonedDateTime(at('2026-11-01T05:30:00Z'), 'America/New_York'), { date: '2026-11-01', minuteOfDay: 90 });
    assert.deepEqual(zonedDateTime(at('2026-11-01T06:30:00Z'), 'America/New_York'), { date: '2026-11-01', minuteOfDay: 90 });
    // Seoul is UTC+9 all year: 15:00 UTC is the next day's midnight.
    assert.deepEqual(zonedDateTime(at('2026-11-22T15:00:00Z'), 'Asia/Seoul'), { date: '2026-11-23', minuteOfDay: 0 });
  });
});

void describe('lastClosedSession', () => {
  void it('KR closes at 15:30 Seoul time (06:30 UTC)', () => {
    // Monday 2026-11-23; the previous session is Friday 2026-11-20.
    assert.equal(last('KR', '2026-11-22T23:59:00Z'), '2026-11-20'); // 08:59 KST, before the open
    assert.equal(last('KR', '2026-11-23T06:29:59Z'), '2026-11-20'); // 15:29:59 KST
    assert.equal(last('KR', '2026-11-23T06:30:00Z'), '2026-11-23'); // 15:30 KST, closed
    assert.equal(last('KR', '2026-11-23T14:59:59Z'), '2026-11-23'); // 23:59:59 KST
  });

  void it('KR skips weekends and KRX holidays', () => {
    assert.equal(last('KR', '2026-11-21T03:00:00Z'), '2026-11-20'); // Saturday noon KST
    assert.equal(last('KR', '2026-11-22T14:00:00Z'), '2026-11-20'); // Sunday 23:00 KST
    // 2025-12-31 is the KRX year-end closing day and 2026-01-01 a holiday: at 10:00 KST on
    // Friday 2026-01-02 the last session is Tuesday 2025-12-30.
    assert.equal(last('KR', '2026-01-02T01:00:00Z'), '2025-12-30');
  });

  void it('US closes at 16:00 New York time: 21:00 UTC in winter (EST)', () => {
    // Friday 2026-11-20; in Seoul that close is 06:00 on Saturday.
    assert.equal(last('US', '2026-11-20T20:59:59Z'), '2026-11-19'); // 15:59:59 EST = Sat 05:59:59 KST
    assert.equal(last('US', '2026-11-20T21:00:00Z'), '2026-11-20'); // 16:00 EST = Sat 06:00 KST
    // Monday 2026-11-23 at 15:31 KST (01:31 EST): New York has not even opened.
    assert.equal(last('US', '2026-11-23T06:31:00Z'), '2026-11-20');
  });

  void it('US across the March change (2026-03-08): 21:00 UTC on Friday, 20:00 UTC on Monday', () => {
    assert.equal(last('US', '2026-03-06T20:59:00Z'), '2026-03-05');
    assert.equal(last('US', '2026-03-06T21:00:00Z'), '2026-03-06');
    assert.equal(last('US', '2026-03-08T12:00:00Z'), '2026-03-06'); // Sunday
    assert.equal(last('US', '2026-03-09T19:59:00Z'), '2026-03-06'); // 15:59 EDT
    assert.equal(last('US', '2026-03-09T20:00:00Z'), '2026-03-09'); // 16:00 EDT (a fixed UTC-5 would say 15:00)
  });

  void it('US across the November change (2026-11-01): 20:00 UTC on Friday, 21:00 UTC on Monday', () => {
    assert.equal(last('US', '2026-10-30T19:59:00Z'), '2026-10-29');
    assert.equal(last('US', '2026-10-30T20:00:00Z'), '2026-10-30'); // 16:00 EDT
    assert.equal(last('US', '2026-11-01T05:30:00Z'), '2026-10-30'); // the repeated 01:30 on Sunday
    assert.equal(last('US', '2026-11-02T20:30:00Z'), '2026-10-30'); // 15:30 EST (a fixed UTC-4 would say 16:30)
    assert.equal(last('US', '2026-11-02T21:00:00Z'), '2026-11-02');
  });

  void it('US skips NYSE holidays: Thanksgiving 2026-11-26 and Good Friday 2026-04-03', () => {
    assert.equal(last('US', '2026-11-27T00:00:00Z'), '2026-11-25'); // Thursday 19:00 EST
    assert.equal(last('US', '2026-11-27T20:59:00Z'), '2026-11-25');
    assert.equal(last('US', '2026-04-04T12:00:00Z'), '2026-04-02');
  });

  void it('at one instant each market has its own last session', () => {
    // Tuesday 2026-11-24 10:00 KST = Monday 20:00 EST: both Mondays have closed (Seoul's Tuesday has not).
    assert.equal(last('KR', '2026-11-24T01:00:00Z'), '2026-11-23');
    assert.equal(last('US', '2026-11-24T01:00:00Z'), '2026-11-23');
    // Monday 2026-11-23 16:00 KST = 02:00 EST: Seoul's Monday, New York's Friday.
    assert.equal(last('KR', '2026-11-23T07:00:00Z'), '2026-11-23');
    assert.equal(last('US', '2026-11-23T07:00:00Z'), '2026-11-20');
  });
});
