// The ECB's euro reference rates: the parser on a real excerpt of eurofxref-hist.csv
// (test/fixtures/real/ecb, PROVENANCE.md), the adapter over real HTTP against a loopback server
// serving that excerpt in a ZIP as the ECB serves eurofxref-hist.zip, and the cross into USD.
// Every expected figure is read off the fixture's rows (quoted beside each).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { periodAverage, rateOnOrBefore, usdSeriesOf } from '../../src/domain/reference-rates.js';
import { SourceHttpError } from '../../src/sources/http.js';
import { parseReferenceRates } from '../../src/sources/ecb/parse.js';
import { EcbSource } from '../../src/sources/ecb/source.js';
import { real } from '../e2e/upstream.js';
import { context, loopback, zipOne } from './helpers.js';

const EXCERPT = real('ecb/eurofxref-hist_2022-12-01_2024-10-11.csv.gz').toString('utf8');
const rate = (date: string, currency: string, perEur: number) => ({ date, currency, perEur, source: 'ecb' });

describe('ECB eurofxref-hist.csv parser (real excerpt)', () => {
  const parsed = parseReferenceRates(EXCERPT);

  it('reads every published cell, newest day first as the file is; N/A cells and the trailing comma are not rates', () => {
    assert.ok(parsed);
    assert.equal(parsed.latest, '2024-10-11');
    assert.equal(parsed.unreadable, 0);
    // The first row: 2024-10-11,1.0938,162.94,1.9558,N/A,25.293,7.461,N/A,0.83705,...
    assert.deepEqual(parsed.rates.slice(0, 6), [rate('2024-10-11', 'USD', 1.0938), rate('2024-10-11', 'JPY', 162.94), rate('2024-10-11', 'BGN', 1.9558), rate('2024-10-11', 'CZK', 25.293), rate('2024-10-11', 'DKK', 7.461), rate('2024-10-11', 'GBP', 0.83705)]);
    // 477 days; 30 currencies published each day of 2023-2024 (41 columns less CYP, EEK, LTL, LVL, MTL, ROL, SIT, SKK,
    // TRL, RUB and HRK), HRK too on the 21 days of December 2022: 477 x 30 + 21 = 14,331 rates.
    assert.equal(new Set(parsed.rates.map((r) => r.date)).size, 477);
    assert.equal(parsed.rates.length, 477 * 30 + 21);
    assert.deepEqual(parsed.rates.filter((r) => r.currency === 'HRK').map((r) => r.date).sort().slice(-1), ['2022-12-30']);
    assert.equal(parsed.rates.some((r) => r.currency === 'TWD' || r.currency === 'RUB'), false);
  });

  it('keeps the days on or after `from`', () => {
    const from = parseReferenceRates(EXCERPT, '2024-10-10');
    assert.deepEqual([from?.latest, from?.rates.length, [...new Set(from?.rates.map((r) => r.date))]], ['2024-10-11', 60, ['2024-10-11', '2024-10-10']]);
  });

  it('a text that is not the file: null; a row with an unreadable figure is counted, its other cells kept', () => {
    assert.equal(parseReferenceRates('<html>maintenance</html>'), null);
    assert.equal(parseReferenceRates('Date,USD,usd,\n'), null);
    const bad = parseReferenceRates('Date,USD,JPY,\n2024-10-11,1.0938,x,\nnot a date,1,2,\n');
    assert.deepEqual(bad, { rates: [rate('2024-10-11', 'USD', 1.0938)], latest: '2024-10-11', unreadable: 2 });
  });
});

describe('reference rates in USD (crossed through EUR)', () => {
  const series = usdSeriesOf(parseReferenceRates(EXCERPT)?.rates ?? []);

  it('EUR is USD per EUR; CAD is USD per EUR / CAD per EUR of the same day', () => {
    // 2024-03-28: USD 1.0811, CAD 1.4672 per EUR.
    assert.deepEqual(rateOnOrBefore(series.get('EUR')!, '2024-03-28'), { usdPerUnit: 1.0811, date: '2024-03-28' });
    assert.deepEqual(rateOnOrBefore(series.get('CAD')!, '2024-03-28'), { usdPerUnit: 1.0811 / 1.4672, date: '2024-03-28' });
  });

  it('a day without a rate (Easter 2024: 03-29 to 04-01) takes the last published before it; beyond the last day, none', () => {
    assert.deepEqual(rateOnOrBefore(series.get('EUR')!, '2024-03-31'), { usdPerUnit: 1.0811, date: '2024-03-28' });
    assert.equal(rateOnOrBefore(series.get('EUR')!, '2024-10-12'), null);
    assert.equal(rateOnOrBefore(series.get('EUR')!, '2022-11-30'), null);
  });

  it("the period's average: the mean of the days published in it, only when the series covers the whole period", () => {
    // Q1 2024: the 63 USD figures from 2024-01-02 (1.0956) to 2024-03-28 (1.0811) sum to 68.4046
    // (awk -F, '$1>="2024-01-01" && $1<="2024-03-31"{s+=$2;n++}' over the fixture).
    const q1 = periodAverage(series.get('EUR')!, '2024-01-01', '2024-03-31');
    assert.equal(q1?.days, 63);
    assert.ok(Math.abs((q1?.usdPerUnit ?? 0) - 68.4046 / 63) < 1e-12);
    assert.equal((q1?.usdPerUnit ?? 0).toFixed(6), '1.085787');
    assert.equal(periodAverage(series.get('EUR')!, '2022-01-01', '2022-12-31'), null); // the excerpt starts on 2022-12-01
    assert.equal(periodAverage(series.get('EUR')!, '2024-07-01', '2024-12-31'), null); // nor reaches the end of 2024
  });
});

describe('EcbSource over HTTP (loopback serving the real excerpt as eurofxref-hist.zip)', () => {
  const ZIP = zipOne('eurofxref-hist.csv', EXCERPT);

  it('a first run reads the file from its first day kept, stores every rate and sets the cursor to the day and the newest rate', async () => {
    const server = await loopback(() => ({ headers: { 'content-type': 'application/zip' }, body: ZIP }));
    try {
      const source = new EcbSource({ baseUrl: server.base, firstDate: '2024-10-01' });
      const result = await source.ingest(context({ asOf: '2024-10-12', cursor: null }));
      assert.deepEqual(server.requests.map((r) => r.url.pathname), ['/stats/eurofxref/eurofxref-hist.zip']);
      // 2024-10-01 to 2024-10-11: 9 TARGET days x 30 currencies.
      assert.equal(result.data.referenceRates?.length, 9 * 30);
      assert.deepEqual(result.data.referenceRates?.find((r) => r.date === '2024-10-01' && r.currency === 'USD'), rate('2024-10-01', 'USD', 1.1086));
      assert.equal(result.cursor, '2024-10-12/2024-10-11');
    } finally {
      await server.close();
    }
  });

  it('once a Seoul day: a run on the day of the last asks nothing; the next day reads from 14 days before the newest rate', async () => {
    const server = await loopback(() => ({ body: ZIP }));
    try {
      const source = new EcbSource({ baseUrl: server.base });
      const same = await source.ingest(context({ asOf: '2024-10-12', cursor: '2024-10-12/2024-10-11' }));
      assert.deepEqual([server.requests.length, same.data, same.cursor], [0, {}, '2024-10-12/2024-10-11']);
      const next = await source.ingest(context({ asOf: '2024-10-13', cursor: '2024-10-12/2024-10-11' }));
      assert.equal(server.requests.length, 1);
      // From 2024-09-27: 2024-09-27, 09-30, 10-01 .. 10-04, 10-07 .. 10-11 = 11 days x 30.
      assert.deepEqual([[...new Set(next.data.referenceRates?.map((r) => r.date))].sort()[0], next.data.referenceRates?.length, next.cursor], ['2024-09-27', 11 * 30, '2024-10-13/2024-10-11']);
    } finally {
      await server.close();
    }
  });

  it("takes no rate dated after the run's day (a rate is known from its publication day)", async () => {
    const server = await loopback(() => ({ body: ZIP }));
    try {
      const result = await new EcbSource({ baseUrl: server.base, firstDate: '2024-03-25' }).ingest(context({ asOf: '2024-03-31', cursor: null }));
      // 2024-03-25 to 03-28 (Good Friday 03-29 has no rate): 4 days x 30; the newest kept, 2024-03-28, is the cursor's.
      assert.deepEqual([[...new Set(result.data.referenceRates?.map((r) => r.date))].sort(), result.cursor], [['2024-03-25', '2024-03-26', '2024-03-27', '2024-03-28'], '2024-03-31/2024-03-28']);
      assert.equal(result.data.referenceRates?.length, 4 * 30);
    } finally {
      await server.close();
    }
  });

  it('an answer that is not the ZIP, or a ZIP without the CSV, fails the run as a parse error (nothing stored)', async () => {
    const bodies = [Buffer.from('<html>Service unavailable</html>'), zipOne('other.csv', EXCERPT), zipOne('eurofxref-hist.csv', 'not,the,file\n')];
    let i = 0;
    const server = await loopback(() => ({ body: bodies[i++] ?? '' }));
    try {
      const source = new EcbSource({ baseUrl: server.base });
      for (let k = 0; k < bodies.length; k++) {
        await assert.rejects(source.ingest(context({ asOf: '2024-10-12', cursor: null })), (err: unknown) => err instanceof SourceHttpError && err.kind === 'parse');
      }
    } finally {
      await server.close();
    }
  });

  it('configured with the SEC source unless ECB_RATES=off; ECB_BASE_URL moves it', () => {
    assert.equal(EcbSource.fromEnv({}), null);
    assert.equal(EcbSource.fromEnv({ SEC_USER_AGENT: 'A a@b.c', ECB_RATES: 'off' }), null);
    assert.equal(EcbSource.fromEnv({ SEC_USER_AGENT: 'A a@b.c' })?.url, 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip');
    assert.equal(EcbSource.fromEnv({ SEC_USER_AGENT: 'A a@b.c', ECB_BASE_URL: 'http://127.0.0.1:9/' })?.url, 'http://127.0.0.1:9/stats/eurofxref/eurofxref-hist.zip');
  });
});
