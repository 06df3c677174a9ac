// USD/KRW for the demo: a smooth path through waypoints that follow the real rate's history
// (won per dollar), with a small mean-reverting daily wobble on top.

import type { FxRate } from '../../domain/model.js';
import { dayNumber, weekdaysBetween } from './calendar.js';
import { Rng } from './random.js';

/** Approximate month-level waypoints of the real USD/KRW rate. */
const WAYPOINTS: readonly (readonly [string, number])[] = [
  ['2014-01-01', 1062], ['2014-04-01', 1065], ['2014-07-01', 1055], ['2014-10-01', 1065], ['2014-12-31', 1095],
  ['2015-03-15', 1115], ['2015-06-30', 1125], ['2015-09-15', 1185], ['2015-12-31', 1172],
  ['2016-02-20', 1198], ['2016-06-30', 1160], ['2016-09-15', 1135], ['2016-12-31', 1190],
  ['2017-03-31', 1135], ['2017-09-30', 1135], ['2017-12-31', 1080],
  ['2018-03-31', 1072], ['2018-06-30', 1100], ['2018-10-15', 1128], ['2018-12-31', 1116],
  ['2019-03-31', 1135], ['2019-05-31', 1182], ['2019-08-15', 1212], ['2019-12-31', 1165],
  ['2020-03-20', 1218], ['2020-06-30', 1200], ['2020-09-30', 1175], ['2020-12-31', 1165],
  ['2021-03-31', 1145], ['2021-06-30', 1150], ['2021-09-30', 1175], ['2021-12-31', 1185],
  ['2022-03-31', 1215], ['2022-06-30', 1290], ['2022-09-30', 1420], ['2022-10-25', 1432], ['2022-12-31', 1268],
  ['2023-03-31', 1300], ['2023-06-30', 1292], ['2023-10-15', 1335], ['2023-12-31', 1298],
  ['2024-01-31', 1330], ['2024-03-31', 1335], ['2024-04-20', 1380], ['2024-07-15', 1385], ['2024-09-30', 1320], ['2024-12-31', 1465],
  ['2025-01-31', 1455], ['2025-04-10', 1465], ['2025-06-30', 1365], ['2025-09-30', 1395], ['2025-12-31', 1455],
  ['2026-03-31', 1430], ['2026-06-30', 1405], ['2026-09-30', 1410], ['2026-12-31', 1420],
];

function waypointRate(day: number): number {
  const first = WAYPOINTS[0];
  if (first === undefined) return 1100;
  if (day <= dayNumber(first[0])) return first[1];
  for (let i = 1; i < WAYPOINTS.length; i++) {
    const [toDate, toRate] = WAYPOINTS[i] as readonly [string, number];
    const toDay = dayNumber(toDate);
    if (day <= toDay) {
      const [fromDate, fromRate] = WAYPOINTS[i - 1] as readonly [string, number];
      const fromDay = dayNumber(fromDate);
      // Cosine easing: no kinks at the waypoints.
      const t = (1 - Math.cos((Math.PI * (day - fromDay)) / (toDay - fromDay))) / 2;
      return fromRate + (toRate - fromRate) * t;
    }
  }
  return (WAYPOINTS[WAYPOINTS.length - 1] as readonly [string, number])[1];
}

/** Every weekday from 2014-01-01 to `asOf` (the Seoul fixing is published on weekdays). */
export function generateFx(seed: number, asOf: string): FxRate[] {
  const rng = new Rng(seed, 'fx:USDKRW');
  let wobble = 0;
  return weekdaysBetween('2014-01-01', asOf).map((date) => {
    wobble = 0.97 * wobble + 0.0025 * rng.normal();
    const usdKrw = Math.round(waypointRate(dayNumber(date)) * Math.exp(wobble) * 100) / 100;
    return { date, usdKrw, source: 'demo' };
  });
}
