import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  addDays,
  addMonths,
  dateOfDayNumber,
  dayNumber,
  daysBetween,
  isoWeek,
  isoWeekday,
  isValidDate,
  isValidMonth,
  monthRange,
  monthsBetween,
} from '../../src/domain/calendar.js';

void describe('calendar', () => {
  void it('day numbers count from 1970-01-01 and round-trip', () => {
    assert.equal(dayNumber('1970-01-01'), 0);
    assert.equal(dayNumber('1969-12-31'), -1);
    assert.equal(dayNumber('2000-03-01'), 11017);
    for (const date of ['1990-01-01', '2000-02-29', '2024-12-31', '2100-03-01']) assert.equal(dateOfDayNumber(dayNumber(date)), date);
  });

  void it('daysBetween and addDays, across a leap day', () => {
    assert.equal(daysBetween('2024-02-28', '2024-03-01'), 2);
    assert.equal(daysBetween('2023-02-28', '2023-03-01'), 1);
    assert.equal(addDays('2024-12-31', 1), '2025-01-01');
    assert.equal(addDays('2024-03-01', -1), '2024-02-29');
  });

  void it('ISO weekday and week (the year owning the Thursday)', () => {
    assert.equal(isoWeekday('2024-09-16'), 1); // Monday
    assert.equal(isoWeekday('2024-09-22'), 7); // Sunday
    assert.equal(isoWeek('2024-12-30').key, '2025-W01');
    assert.equal(isoWeek('2021-01-03').key, '2020-W53');
    assert.equal(isoWeek('2020-12-31').key, '2020-W53');
    assert.equal(isoWeek('2024-01-01').key, '2024-W01');
    assert.deepEqual(isoWeek('2024-09-19'), { year: 2024, week: 38, key: '2024-W38' });
  });

  void it('months', () => {
    assert.equal(addMonths('2024-11', 3), '2025-02');
    assert.equal(addMonths('2024-01', -13), '2022-12');
    assert.equal(monthsBetween('2019-04', '2024-03'), 59);
    assert.deepEqual(monthRange('2024-11', '2025-02'), ['2024-11', '2024-12', '2025-01', '2025-02']);
    assert.deepEqual(monthRange('2025-02', '2024-11'), []);
  });

  void it('validates dates and months', () => {
    assert.equal(isValidDate('2024-02-29'), true);
    assert.equal(isValidDate('2023-02-29'), false);
    assert.equal(isValidDate('2024-13-01'), false);
    assert.equal(isValidDate('2024-1-01'), false);
    assert.equal(isValidMonth('1990-01'), true);
    assert.equal(isValidMonth('1990-00'), false);
    assert.equal(isValidMonth('1990-1'), false);
  });
});
