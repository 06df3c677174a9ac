import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import type { DailyBar, FinancialReport, Market, Security } from '../../src/domain/model.js';
import type { DemoUniverse } from '../../src/sources/demo/index.js';
import { generateDemo, isTradingDay } from '../../src/sources/demo/index.js';

const AS_OF = '2026-11-23';
const universe = generateDemo({ asOf: AS_OF });

const BAND_FLOORS: Record<Market, readonly [number, number, number, number]> = {
  KR: [20e12, 5e12, 1e12, 3e11],
  US: [200e9, 50e9, 10e9, 3e9],
};
function bandOf(market: Market, marketCap: number): string {
  const [mega, xlarge, large, mid] = BAND_FLOORS[market];
  if (marketCap >= mega) return 'mega';
  if (marketCap >= xlarge) return 'xlarge';
  if (marketCap >= large) return 'large';
  if (marketCap >= mid) return 'mid';
  return 'small';
}

const dayDiff = (a: string, b: string): number => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000;

function sample(u: DemoUniverse, count: number): Security[] {
  const step = Math.floor(u.securities.length / count);
  return u.securities.filter((_, i) => i % step === 0).slice(0, count);
}

function fingerprint(u: DemoUniverse): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(u.securities));
  hash.update(JSON.stringify(u.trade));
  hash.update(JSON.stringify(u.sectorExports));
  hash.update(JSON.stringify(u.fx));
  for (const security of sample(u, 20)) {
    hash.update(JSON.stringify(u.barsFor(security)));
    hash.update(JSON.stringify(u.reportsFor(security)));
    hash.update(JSON.stringify(u.flowsFor(security)));
  }
  return hash.digest('hex');
}

/** Originals only: the first filing of each fiscal period (restatements come right after). */
function originals(reports: readonly FinancialReport[]): FinancialReport[] {
  const seen = new Set<string>();
  return reports.filter((r) => {
    const key = `${r.fiscalYear}Q${r.fiscalQuarter}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Discrete quarter values of a flow item, recovered from year-to-date originals. */
function discrete(reports: readonly FinancialReport[], item: 'revenue' | 'netIncome'): number[] {
  return reports.map((r, i) => {
    const value = r[item] ?? 0;
    const previous = reports[i - 1];
    return r.fiscalQuarter === 1 || previous === undefined ? value : value - (previous[item] ?? 0);
  });
}

const ttmNetIncome = (reports: readonly FinancialReport[]): number => discrete(reports, 'netIncome').slice(-4).reduce((a, b) => a + b, 0);

// Everything per stock, generated once and checked by several tests below.
const all = universe.securities.map((security) => {
  const bars = universe.barsFor(security);
  const reports = universe.reportsFor(security);
  const flows = universe.flowsFor(security);
  return { security, bars, reports, flows, last: bars[bars.length - 1] as DailyBar };
});

describe('demo universe: determinism', () => {
  it('gives byte-identical output for the same seed and different output for another seed', () => {
    const first = fingerprint(universe);
    assert.equal(fingerprint(generateDemo({ asOf: AS_OF })), first);
    assert.equal(fingerprint(generateDemo({ asOf: AS_OF, seed: 20140101 })), first);
    assert.notEqual(fingerprint(generateDemo({ asOf: AS_OF, seed: 7 })), first);
  });

  it('generates one stock the same whether or not others were generated first', () => {
    const target = universe.securities[123] as Security;
    const fresh = generateDemo({ asOf: AS_OF });
    const alone = JSON.stringify([fresh.barsFor(target), fresh.reportsFor(target), fresh.flowsFor(target)]);
    const busy = generateDemo({ asOf: AS_OF });
    for (const other of sample(busy, 10)) {
      busy.flowsFor(other);
      busy.reportsFor(other);
    }
    const afterOthers = JSON.stringify([busy.barsFor(target), busy.reportsFor(target), busy.flowsFor(target)]);
    assert.equal(afterOthers, alone);
    assert.equal(JSON.stringify(universe.barsFor(target)), JSON.stringify(all[123]?.bars));
  });

  it('does not rewrite history when asOf moves forward', () => {
    const earlier = generateDemo({ asOf: '2026-08-31' });
    for (const security of sample(earlier, 10)) {
      const before = earlier.reportsFor(security);
      const now = universe.reportsFor(security).filter((r) => r.disclosedOn <= '2026-08-31');
      assert.deepEqual(now, before);
      // Prices older than the final year (where the path is pinned to its target) are stable.
      const oldBefore = earlier.barsFor(security).filter((b) => b.date < '2025-06-01');
      const oldNow = universe.barsFor(security).filter((b) => b.date < '2025-06-01');
      assert.deepEqual(oldNow, oldBefore);
    }
    assert.deepEqual(universe.trade.filter((t) => t.month <= '2026-07'), earlier.trade);
    assert.deepEqual(universe.fx.filter((f) => f.date <= '2026-08-31'), earlier.fx);
  });
});

describe('demo universe: securities', () => {
  it('has about 400 KR and 400 US companies sorted by market then code', () => {
    const kr = universe.securities.filter((s) => s.market === 'KR');
    const us = universe.securities.filter((s) => s.market === 'US');
    assert.equal(kr.length, 400);
    assert.equal(us.length, 400);
    const keys = universe.securities.map((s) => `${s.market}:${s.code}`);
    assert.deepEqual(keys, [...keys].sort());
  });

  it('uses real-format, unique, invented codes', () => {
    const codes = new Set<string>();
    for (const s of universe.securities) {
      if (s.market === 'KR') {
        assert.match(s.code, /^\d{6}$/);
        assert.notEqual(s.code, '999999');
        assert.ok(s.exchange === 'KOSPI' || s.exchange === 'KOSDAQ', s.exchange);
        assert.equal(s.currency, 'KRW');
        assert.equal(s.fiscalYearEndMonth, 12);
      } else {
        assert.match(s.code, /^[A-Z]{1,5}(\.[A-Z])?$/);
        assert.ok(s.exchange === 'NYSE' || s.exchange === 'NASDAQ', s.exchange);
        assert.equal(s.currency, 'USD');
      }
      assert.ok(!codes.has(`${s.market}:${s.code}`), `duplicate ${s.code}`);
      codes.add(`${s.market}:${s.code}`);
    }
    const classShares = universe.securities.filter((s) => s.code.includes('.'));
    assert.ok(classShares.length >= 2 && classShares.length <= 3, `class shares: ${classShares.length}`);
    assert.equal(new Set(universe.securities.map((s) => s.name)).size, universe.securities.length);
  });

  it('names KR companies in Korean as their exchange would, with an English name beside it', () => {
    const kr = universe.securities.filter((s) => s.market === 'KR');
    for (const s of kr) {
      assert.match(s.name, /^[가-힣]+[0-9]*$/, s.name);
      assert.match(s.nameEn ?? '', /^[A-Z][A-Za-z&.\- ]+( \d+)?$/, `${s.name}: ${s.nameEn}`);
    }
    assert.equal(new Set(kr.map((s) => s.nameEn)).size, kr.length);
    // The Korean name is the English one's syllables in Hangul and the sector word in Korean.
    const byEnglish = new Map(kr.map((s) => [s.nameEn, s.name]));
    for (const [english, korean] of byEnglish) {
      if (english?.endsWith(' Electronics') && /^[가-힣]+$/.test(korean)) assert.ok(korean.endsWith('전자'), `${english} = ${korean}`);
      if (english?.startsWith('Han')) assert.ok(korean.startsWith('한'), `${english} = ${korean}`);
    }
    for (const s of universe.securities.filter((x) => x.market === 'US')) assert.equal(s.nameEn, s.name);
  });

  it('has at least 20 sectors per market and some non-December US fiscal years', () => {
    for (const market of ['KR', 'US'] as const) {
      const sectors = new Set(universe.securities.filter((s) => s.market === market).map((s) => s.sector));
      assert.ok(sectors.size >= 20, `${market}: ${sectors.size} sectors`);
    }
    const us = universe.securities.filter((s) => s.market === 'US');
    const offCycle = us.filter((s) => s.fiscalYearEndMonth !== 12);
    assert.ok(offCycle.length >= 0.08 * us.length && offCycle.length <= 0.25 * us.length, `${offCycle.length}`);
    assert.ok(offCycle.every((s) => [3, 6, 9].includes(s.fiscalYearEndMonth)));
  });

  it('spreads latest market caps over every band in both markets', () => {
    const counts: Record<string, number> = {};
    for (const { security, last } of all) {
      const key = `${security.market}:${bandOf(security.market, last.marketCap)}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    for (const market of ['KR', 'US']) {
      for (const band of ['mega', 'xlarge', 'large', 'mid', 'small']) {
        assert.ok((counts[`${market}:${band}`] ?? 0) >= 5, `${market} ${band}: ${counts[`${market}:${band}`]}`);
      }
    }
    assert.equal(counts['KR:mega'], 6);
    assert.equal(counts['US:mega'], 10);
  });

  it('gives about 2,700 KR and 6,000 US securities at full size', () => {
    const full = generateDemo({ asOf: AS_OF, size: 'full' });
    const kr = full.securities.filter((s) => s.market === 'KR').length;
    const us = full.securities.filter((s) => s.market === 'US').length;
    assert.ok(Math.abs(kr - 2700) <= 30, `${kr}`);
    assert.ok(Math.abs(us - 6000) <= 60, `${us}`);
    assert.equal(new Set(full.securities.map((s) => `${s.market}:${s.code}`)).size, full.securities.length);
    assert.equal(generateDemo({ asOf: AS_OF, scale: 2 }).securities.length, 1600);
  });
});

describe('demo universe: calendars', () => {
  it('closes the exchanges on the listed holidays and weekends', () => {
    for (const date of ['2024-02-09', '2024-02-12', '2024-09-16', '2024-09-17', '2024-09-18', '2024-12-31', '2025-01-01']) {
      assert.equal(isTradingDay('KR', date), false, `KR ${date}`);
    }
    for (const date of ['2024-12-25', '2024-11-28', '2025-04-18', '2024-07-04', '2022-06-20', '2021-12-24']) {
      assert.equal(isTradingDay('US', date), false, `US ${date}`);
    }
    assert.equal(isTradingDay('US', '2021-12-31'), true, 'New Year on a Saturday is not observed on Dec 31');
    for (const market of ['KR', 'US'] as const) {
      assert.equal(isTradingDay(market, '2024-03-13'), true);
      assert.equal(isTradingDay(market, '2024-03-16'), false);
      assert.equal(isTradingDay(market, '2024-03-17'), false);
    }
  });

  it('lists trading days from 2014-01-02 to the last session closed by the end of the Seoul day asOf', () => {
    // AS_OF is a Monday, open in both markets. Seoul's Monday session closed at 15:30; New
    // York's closes at 16:00 EST = 06:00 Tuesday in Seoul, so the US days end on Friday.
    assert.equal(universe.tradingDays('KR').at(-1), AS_OF);
    assert.equal(universe.tradingDays('US').at(-1), '2026-11-20');
    for (const market of ['KR', 'US'] as const) {
      const days = universe.tradingDays(market);
      assert.equal(days[0], '2014-01-02');
      assert.ok(days.every((d, i) => i === 0 || d > (days[i - 1] as string)));
      assert.ok(days.every((d) => isTradingDay(market, d)));
      const perYear = days.filter((d) => d.startsWith('2024')).length;
      assert.ok(perYear >= 240 && perYear <= 253, `${market} 2024: ${perYear}`);
    }
    const weekend = generateDemo({ asOf: '2026-11-22' }).tradingDays('KR');
    assert.equal(weekend[weekend.length - 1], '2026-11-20');
  });

  it('never has a bar for a session that has not closed at `now`', () => {
    const lastDays = (now: string, asOf = AS_OF): { KR?: string; US?: string } => {
      const u = generateDemo({ asOf, now: new Date(now) });
      return { KR: u.tradingDays('KR').at(-1), US: u.tradingDays('US').at(-1) };
    };
    // Monday 2026-11-23 in Seoul: before the open, a second before the close, a minute after.
    assert.deepEqual(lastDays('2026-11-23T08:59:00+09:00'), { KR: '2026-11-20', US: '2026-11-20' });
    assert.deepEqual(lastDays('2026-11-23T15:29:00+09:00'), { KR: '2026-11-20', US: '2026-11-20' });
    assert.deepEqual(lastDays('2026-11-23T15:31:00+09:00'), { KR: '2026-11-23', US: '2026-11-20' });
    // Tuesday 05:59 in Seoul is Monday 15:59 in New York: the US Monday is not closed yet; at 06:00 it is.
    assert.deepEqual(lastDays('2026-11-24T05:59:00+09:00', '2026-11-24'), { KR: '2026-11-23', US: '2026-11-20' });
    assert.deepEqual(lastDays('2026-11-24T06:00:00+09:00', '2026-11-24'), { KR: '2026-11-23', US: '2026-11-23' });
    // A `now` later than the Seoul day asOf does not reach past it.
    assert.deepEqual(lastDays('2026-12-01T12:00:00+09:00'), { KR: '2026-11-23', US: '2026-11-20' });
    // Bars and flows follow the calendar.
    const early = generateDemo({ asOf: AS_OF, now: new Date('2026-11-23T08:59:00+09:00') });
    const kr = early.securities.find((s) => s.market === 'KR') as Security;
    assert.equal(early.barsFor(kr).at(-1)?.date, '2026-11-20');
    assert.equal(early.flowsFor(kr).at(-1)?.date, '2026-11-20');
  });
});

describe('demo universe: bars', () => {
  it('has one consistent bar per trading day for every stock', () => {
    const daysOf = { KR: universe.tradingDays('KR'), US: universe.tradingDays('US') };
    for (const { security, bars } of all) {
      const days = daysOf[security.market];
      assert.equal(bars.length, days.length, security.code);
      for (let i = 0; i < bars.length; i++) {
        const b = bars[i] as DailyBar;
        if (b.date !== days[i]) assert.fail(`${security.code} bar ${i} on ${b.date}`);
        const ordered = b.low > 0 && b.low <= Math.min(b.open, b.close) && Math.max(b.open, b.close) <= b.high;
        if (!ordered) assert.fail(`${security.code} ${b.date} OHLC ${b.open} ${b.high} ${b.low} ${b.close}`);
        if (!Number.isInteger(b.volume) || b.volume <= 0 || !Number.isInteger(b.shares) || b.shares <= 0) assert.fail(`${security.code} ${b.date} volume/shares`);
        // Traded value is volume times a price inside the day's range (allow rounding).
        if (b.tradedValue < b.volume * b.low - 1 || b.tradedValue > b.volume * b.high + 1) assert.fail(`${security.code} ${b.date} tradedValue`);
        if (security.market === 'KR') {
          const integers = [b.open, b.high, b.low, b.close, b.tradedValue, b.marketCap].every(Number.isInteger);
          if (!integers || b.marketCap !== b.close * b.shares) assert.fail(`${security.code} ${b.date} KR integers / marketCap`);
        } else {
          const cents = [b.open, b.high, b.low, b.close].every((p) => Math.abs(p * 100 - Math.round(p * 100)) < 1e-6);
          if (!cents || Math.abs(b.marketCap - b.close * b.shares) > 0.01) assert.fail(`${security.code} ${b.date} US cents / marketCap`);
        }
        if (b.source !== 'demo' || b.code !== security.code || b.market !== security.market) assert.fail(`${security.code} identity`);
      }
      // Shares change rarely: a handful of issues or buybacks over the years, not daily.
      const changes = bars.filter((b, i) => i > 0 && b.shares !== bars[i - 1]?.shares).length;
      assert.ok(changes <= 30, `${security.code}: ${changes} share changes`);
    }
  });

  it('keeps PER plausible for profitable companies', () => {
    const pers: number[] = [];
    for (const { reports, last } of all) {
      const ttm = ttmNetIncome(originals(reports));
      if (ttm > 0) pers.push(last.marketCap / ttm);
    }
    pers.sort((a, b) => a - b);
    const share = pers.filter((p) => p >= 5 && p <= 40).length / pers.length;
    assert.ok(share >= 0.75, `only ${(share * 100).toFixed(0)}% of PERs within 5..40`);
  });
});

describe('demo universe: financial reports', () => {
  it('files every fiscal quarter from FY2012 with balanced, non-negative balance sheets', () => {
    for (const { security, reports } of all) {
      const filed = originals(reports);
      assert.equal(filed[0]?.fiscalYear, 2012, security.code);
      assert.equal(filed[0]?.fiscalQuarter, 1);
      for (let i = 0; i < filed.length; i++) {
        const r = filed[i] as FinancialReport;
        const index = r.fiscalYear * 4 + r.fiscalQuarter;
        const prev = filed[i - 1];
        if (prev && index !== prev.fiscalYear * 4 + prev.fiscalQuarter + 1) assert.fail(`${security.code} gap before ${r.fiscalYear}Q${r.fiscalQuarter}`);
      }
      for (const r of reports) {
        const ok =
          r.totalAssets === (r.totalLiabilities ?? NaN) + (r.equity ?? NaN) &&
          (r.currentAssets ?? 0) <= (r.totalAssets ?? 0) &&
          (r.currentLiabilities ?? 0) <= (r.totalLiabilities ?? 0) &&
          [r.cash, r.debt, r.receivables, r.inventory, r.payables].every((x) => x !== null && x >= 0) &&
          (r.cash ?? 0) <= (r.currentAssets ?? 0) &&
          (r.debt ?? 0) + (r.payables ?? 0) <= (r.totalLiabilities ?? 0) &&
          (r.capex ?? 0) > 0 &&
          (r.interestExpense ?? -1) >= 0 &&
          (r.debt !== 0 || r.interestExpense === 0) &&
          r.disclosedOn <= AS_OF &&
          r.source === 'demo';
        if (!ok) assert.fail(`${security.code} ${r.fiscalYear}Q${r.fiscalQuarter}: ${JSON.stringify(r)}`);
        const amounts = [r.revenue, r.netIncome, r.totalAssets, r.equity, r.cash, r.shares];
        if (!amounts.every((x) => Number.isInteger(x))) assert.fail(`${security.code}: non-integer amounts`);
      }
      // The latest quarter disclosed on or before asOf is there.
      const last = filed[filed.length - 1] as FinancialReport;
      assert.ok(dayDiff(last.periodEnd, AS_OF) < 92 + 90, `${security.code} latest ${last.periodEnd}`);
    }
  });

  it('reports year-to-date flows whose discrete quarters add up to the fiscal year', () => {
    for (const { security, reports } of all.slice(0, 200)) {
      const filed = originals(reports);
      for (const item of ['revenue', 'netIncome'] as const) {
        const quarters = discrete(filed, item);
        for (let i = 0; i < filed.length; i++) {
          const r = filed[i] as FinancialReport;
          if (r.fiscalQuarter !== 4 || i < 3) continue;
          const sum = quarters.slice(i - 3, i + 1).reduce((a, b) => a + b, 0);
          if (sum !== r[item]) assert.fail(`${security.code} FY${r.fiscalYear} ${item}`);
        }
      }
      // Year-to-date revenue never falls within a fiscal year.
      for (let i = 1; i < filed.length; i++) {
        const r = filed[i] as FinancialReport;
        if (r.fiscalQuarter > 1 && (r.revenue ?? 0) < (filed[i - 1]?.revenue ?? 0)) assert.fail(`${security.code} YTD revenue fell`);
      }
    }
  });

  it('places fiscal quarters of non-December years correctly', () => {
    const june = all.find(({ security }) => security.fiscalYearEndMonth === 6);
    assert.ok(june, 'a June fiscal year company');
    const q1 = june.reports.find((r) => r.fiscalYear === 2025 && r.fiscalQuarter === 1);
    const fy = june.reports.find((r) => r.fiscalYear === 2025 && r.fiscalQuarter === 4);
    assert.equal(q1?.periodEnd, '2024-09-30');
    assert.equal(fy?.periodEnd, '2025-06-30');
  });

  it('discloses originals 30-90 days after period end and restatements 20-200 days later', () => {
    let filings = 0;
    let restatements = 0;
    for (const { security, reports } of all) {
      for (let i = 0; i < reports.length; i++) {
        const r = reports[i] as FinancialReport;
        const prev = reports[i - 1];
        const isRestatement = prev !== undefined && prev.fiscalYear === r.fiscalYear && prev.fiscalQuarter === r.fiscalQuarter;
        if (isRestatement) {
          restatements++;
          const lag = dayDiff(prev.disclosedOn, r.disclosedOn);
          assert.ok(lag >= 20 && lag <= 200, `${security.code} restated after ${lag} days`);
          assert.notEqual(r.netIncome, prev.netIncome);
          assert.equal(r.equity, (prev.equity ?? 0) + (r.netIncome ?? 0) - (prev.netIncome ?? 0));
        } else {
          filings++;
          const lag = dayDiff(r.periodEnd, r.disclosedOn);
          assert.ok(lag >= 30 && lag <= 90, `${security.code} lag ${lag}`);
          if (r.fiscalQuarter < 4) assert.ok(lag <= 50, `${security.code} quarterly lag ${lag}`);
        }
      }
    }
    const share = restatements / filings;
    assert.ok(share > 0.015 && share < 0.05, `restatement share ${share}`);
  });

  it('lists shares at period end as the listed shares of that date', () => {
    let checked = 0;
    let matched = 0;
    for (const { reports, bars } of all.slice(0, 300)) {
      const byDate = new Map(bars.map((b) => [b.date, b.shares]));
      for (const r of originals(reports)) {
        const shares = byDate.get(r.periodEnd);
        if (shares === undefined) continue;
        checked++;
        if (shares === r.shares) matched++;
      }
    }
    assert.ok(checked > 1000);
    assert.equal(matched, checked);
  });

  it('contains every archetype', () => {
    let zeroRevenue = 0;
    let negativeEquity = 0;
    let ttmLoss = 0;
    let debtFree = 0;
    let turnaround = 0;
    let separateOnly = 0;
    for (const { security, reports } of all) {
      const filed = originals(reports);
      const latest = filed[filed.length - 1] as FinancialReport;
      if (filed.every((r) => r.revenue === 0 && r.costOfSales === 0)) {
        zeroRevenue++;
        assert.ok(filed.every((r) => (r.netIncome ?? 0) < 0 && (r.operatingCashFlow ?? 0) < 0), `${security.code} biotech cash burn`);
      }
      if ((latest.equity ?? 0) < 0 && (latest.totalLiabilities ?? 0) > (latest.totalAssets ?? 0)) negativeEquity++;
      if (ttmNetIncome(filed) < 0) ttmLoss++;
      if (latest.debt === 0 && latest.interestExpense === 0) debtFree++;
      const quarters = discrete(filed, 'netIncome');
      const recent = quarters.slice(-3);
      const before = quarters.slice(-16, -6);
      if (recent.every((q) => q > 0) && before.every((q) => q < 0)) turnaround++;
      if (!latest.consolidated) {
        separateOnly++;
        assert.equal(security.market, 'KR');
      }
    }
    const counts = { zeroRevenue, negativeEquity, ttmLoss, debtFree, turnaround, separateOnly };
    for (const [name, count] of Object.entries(counts)) assert.ok(count >= 3, `${name}: ${count}`);
    assert.ok(separateOnly <= 15, `separateOnly: ${separateOnly}`);
  });
});

describe('demo universe: investor flows', () => {
  it('gives KR stocks one bounded flow per trading day and US stocks none', () => {
    let netBought = 0;
    let netSold = 0;
    for (const { security, bars, flows } of all) {
      if (security.market === 'US') {
        assert.equal(flows.length, 0);
        continue;
      }
      assert.equal(flows.length, bars.length);
      for (let i = 0; i < flows.length; i++) {
        const f = flows[i];
        const b = bars[i] as DailyBar;
        if (f === undefined || f.date !== b.date || f.source !== 'demo') assert.fail(`${security.code} flow ${i}`);
        if (!Number.isInteger(f.foreignNet) || !Number.isInteger(f.institutionNet)) assert.fail('integers');
        if (Math.abs(f.foreignNet) + Math.abs(f.institutionNet) > b.tradedValue) assert.fail(`${security.code} ${f.date} exceeds traded value`);
      }
      const last20 = flows.slice(-20).reduce((sum, f) => sum + f.foreignNet + f.institutionNet, 0);
      if (last20 > 0) netBought++;
      else netSold++;
    }
    assert.ok(netBought >= 50 && netSold >= 50, `bought ${netBought}, sold ${netSold}`);
  });
});

describe('demo universe: FX', () => {
  it('has USD/KRW on every weekday with a realistic level per year', () => {
    assert.equal(universe.fx[0]?.date, '2014-01-01');
    assert.equal(universe.fx[universe.fx.length - 1]?.date, AS_OF);
    const ranges: Record<string, readonly [number, number]> = {
      '2014': [1000, 1130], '2016': [1100, 1240], '2018': [1040, 1160], '2020': [1130, 1260],
      '2021': [1100, 1220], '2022': [1170, 1470], '2023': [1230, 1370], '2024': [1270, 1500], '2025': [1320, 1510],
    };
    for (const rate of universe.fx) {
      const day = new Date(`${rate.date}T00:00:00Z`).getUTCDay();
      assert.ok(day !== 0 && day !== 6, rate.date);
      assert.equal(rate.source, 'demo');
      assert.equal(Math.round(rate.usdKrw * 100) / 100, rate.usdKrw);
      const range = ranges[rate.date.slice(0, 4)];
      if (range) assert.ok(rate.usdKrw >= range[0] && rate.usdKrw <= range[1], `${rate.date} ${rate.usdKrw}`);
    }
  });
});

describe('demo universe: trade statistics', () => {
  it('runs monthly from 1990-01 to the last complete month with exact balances', () => {
    assert.equal(universe.trade[0]?.month, '1990-01');
    assert.equal(universe.trade[universe.trade.length - 1]?.month, '2026-10');
    assert.equal(universe.trade.length, 37 * 12 - 2);
    for (const t of universe.trade) {
      assert.ok(Number.isInteger(t.exports) && Number.isInteger(t.imports) && t.exports > 0 && t.imports > 0);
      assert.equal(t.balance, t.exports - t.imports);
      assert.equal(t.source, 'demo');
    }
    const january = generateDemo({ asOf: '2026-01-15' }).trade;
    assert.equal(january[january.length - 1]?.month, '2025-12');
  });

  it('keeps annual totals within 5% of the published figures', () => {
    const exportsBn: Record<number, number> = {
      1990: 65.0, 1995: 125.1, 2000: 172.3, 2005: 284.4, 2008: 422.0, 2009: 363.5, 2010: 466.4, 2011: 555.2, 2014: 572.7,
      2015: 526.8, 2016: 495.4, 2018: 604.9, 2019: 542.2, 2020: 512.5, 2021: 644.4, 2022: 683.6, 2023: 632.2, 2024: 683.7, 2025: 700,
    };
    const importsBn: Record<number, number> = {
      1990: 69.8, 1995: 135.1, 2000: 160.5, 2005: 261.2, 2008: 435.3, 2009: 323.1, 2010: 425.2, 2011: 524.4, 2014: 525.5,
      2015: 436.5, 2016: 406.2, 2018: 535.2, 2019: 503.3, 2020: 467.6, 2021: 615.1, 2022: 731.4, 2023: 642.6, 2024: 632.0, 2025: 640,
    };
    for (const [year, expected] of Object.entries(exportsBn)) {
      const months = universe.trade.filter((t) => t.month.startsWith(year));
      assert.equal(months.length, 12);
      const exports = months.reduce((a, t) => a + t.exports, 0) / 1e9;
      const imports = months.reduce((a, t) => a + t.imports, 0) / 1e9;
      assert.ok(Math.abs(exports / expected - 1) <= 0.05, `${year} exports ${exports}`);
      assert.ok(Math.abs(imports / (importsBn[Number(year)] ?? NaN) - 1) <= 0.05, `${year} imports ${imports}`);
    }
  });

  it('splits exports into 50+ sectors that sum exactly to the total every month', () => {
    const sectors = new Set(universe.sectorExports.map((s) => s.sector));
    assert.ok(sectors.size >= 50, `${sectors.size} sectors`);
    for (const name of ['Semiconductors', 'Automobiles', 'Shipbuilding', 'Secondary Batteries', 'Displays', 'Solar Cells', 'Other']) {
      assert.ok(sectors.has(name), name);
    }
    const byMonth = new Map<string, number>();
    for (const s of universe.sectorExports) {
      assert.ok(Number.isInteger(s.exports) && s.exports >= 0, `${s.month} ${s.sector}`);
      assert.equal(s.source, 'demo');
      byMonth.set(s.month, (byMonth.get(s.month) ?? 0) + s.exports);
    }
    assert.equal(byMonth.size, universe.trade.length);
    for (const t of universe.trade) assert.equal(byMonth.get(t.month), t.exports, t.month);
  });

  it('moves sector shares the way Korean exports did', () => {
    const share = (sector: string, year: string): number => {
      const total = universe.trade.filter((t) => t.month.startsWith(year)).reduce((a, t) => a + t.exports, 0);
      const part = universe.sectorExports.filter((s) => s.sector === sector && s.month.startsWith(year)).reduce((a, s) => a + s.exports, 0);
      return (100 * part) / total;
    };
    const chips1990 = share('Semiconductors', '1990');
    assert.ok(chips1990 >= 5 && chips1990 <= 9, `semis 1990 ${chips1990}`);
    assert.ok(share('Semiconductors', '2000') >= 12, 'semis 2000');
    assert.ok(share('Semiconductors', '2018') >= 17, 'semis 2018');
    assert.ok(share('Semiconductors', '2023') < share('Semiconductors', '2022') - 2, 'semis dip in 2023');
    assert.ok(share('Apparel', '1990') > 5 * share('Apparel', '2020'), 'apparel shrinks');
    for (const sector of ['Secondary Batteries', 'Displays', 'Solar Cells']) {
      const early = universe.sectorExports.filter((s) => s.sector === sector && s.month < '1999-01');
      assert.ok(early.length > 0 && early.every((s) => s.exports === 0), `${sector} before it existed`);
      assert.ok(share(sector, '2020') > 0, `${sector} in 2020`);
    }
  });
});

describe('demo universe: provenance', () => {
  it('marks every record as demo', () => {
    assert.ok(universe.securities.every((s) => s.source === 'demo'));
    assert.ok(all.every(({ reports }) => reports.every((r) => r.source === 'demo')));
    assert.ok(all.every(({ flows }) => flows.every((f) => f.source === 'demo')));
  });
});
