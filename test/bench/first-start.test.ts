// The first-start rehearsal's replica and harness (bench/replica, bench/first-start.ts): the
// simulated clock takes the service's pacing waits, the replica enforces each source's limits
// with the provider's own answers past them, the bulk files read back through the service's
// ZIP reader, and a tiny-scale rehearsal completes and reports.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FscSource } from '../../src/sources/fsc/source.js';
import { KrxOpenApiSource } from '../../src/sources/krxapi/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { RateLimiter, setPacingTimer, SourceHttpError } from '../../src/sources/http.js';
import { zipMembers } from '../../src/sources/shared/zip-stream.js';
import { overListings, rehearse } from '../../bench/first-start.js';
import { prepareBulk } from '../../bench/replica/bulk.js';
import { WarpClock } from '../../bench/replica/clock.js';
import { DOCUMENTED_LIMITS } from '../../bench/replica/limits.js';
import { KIS_APP } from '../../bench/replica/kis.js';
import { parseInvestorTrend } from '../../src/sources/kis/parse.js';
import { KRX_MEMBER, startReplica, type Replica } from '../../bench/replica/server.js';
import { buildUniverse } from '../../bench/replica/universe.js';
import { context } from '../sources/helpers.js';
import { tempDir } from '../support/tmp.js';

// 2026-11-25 10:00 in Seoul (01:00 UTC): a Wednesday.
const START = Date.parse('2026-11-25T01:00:00Z');

describe('the simulated clock', () => {
  it('takes a rate limiter\'s waits: five calls 1,000 ms apart span 4,000 ms on the clock', async () => {
    // Real time held still: the limiter sets its next turn at the clock's time, and the test
    // reads the clock again after the turn; with real time running, a millisecond boundary
    // crossed between the two would show a gap of 999 ms.
    const clock = new WarpClock(START, () => 0);
    const restore = setPacingTimer(clock);
    try {
      const limiter = new RateLimiter(1_000);
      const at: number[] = [];
      for (let i = 0; i < 5; i++) {
        await limiter.acquire();
        at.push(clock.now());
      }
      // Four waits (the first call goes at once); each later call starts >= 1,000 ms after the one before.
      assert.equal(clock.waits, 4);
      for (let i = 1; i < 5; i++) assert.ok((at[i] as number) - (at[i - 1] as number) >= 1_000, `gap ${i}`);
      assert.ok(clock.now() - START >= 4_000);
      assert.ok(clock.skippedMs > 0);
    } finally {
      restore();
    }
  });

  it('does not skip a wait while a call is in flight, and an aborted wait rejects', async () => {
    const clock = new WarpClock(START);
    const done = clock.busy();
    let woke = false;
    const sleeping = clock.sleep(60_000).then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(woke, false);
    done();
    await sleeping;
    assert.equal(woke, true);
    const controller = new AbortController();
    const hold = clock.busy();
    const aborted = clock.sleep(1_000, controller.signal);
    controller.abort();
    await assert.rejects(aborted, (err: unknown) => err instanceof SourceHttpError && err.kind === 'aborted');
    hold();
  });
});

describe('the replica enforces the documented limits', () => {
  let clock: WarpClock;
  let replica: Replica;
  before(async () => {
    // A clock that stands still unless advanced: every call is judged at a known instant.
    clock = new WarpClock(START, () => 0);
    // A DART allowance of 3 and a data.go.kr allowance of 2 stand for 20,000 and 10,000 (reached in a few calls).
    replica = await startReplica({ scale: 0.002, now: () => clock.now(), limits: { opendart: { perDay: 3, dayOffsetHours: 9 }, fsc: { perDay: 2, dayOffsetHours: 9 }, 'krx-openapi': { perDay: 4, dayOffsetHours: 9 } } });
  });
  after(() => replica.close());

  it('documents the providers\' figures', () => {
    assert.equal(DOCUMENTED_LIMITS.opendart.perDay, 20_000);
    assert.deepEqual(DOCUMENTED_LIMITS.sec.rate, { calls: 10, windowMs: 1_000 });
    assert.deepEqual(DOCUMENTED_LIMITS.polygon.rate, { calls: 5, windowMs: 60_000 });
    assert.equal(DOCUMENTED_LIMITS.fsc.perDay, 10_000);
    assert.equal(DOCUMENTED_LIMITS['krx-openapi'].perDay, 10_000);
    assert.deepEqual(DOCUMENTED_LIMITS.kis.rate, { calls: 20, windowMs: 1_000 });
  });

  it('OpenDART: status 020 past the day\'s allowance, answers again the next Seoul day', async () => {
    const url = `${replica.env['DART_BASE_URL']}/api/company.json?crtfc_key=k&corp_code=90000000`;
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) statuses.push(((await (await fetch(url)).json()) as { status: string }).status);
    assert.deepEqual(statuses, ['000', '000', '000', '020']);
    // 10:00 Seoul + 14 h = 00:00 the next Seoul day.
    clock.advance(14 * 3_600_000);
    assert.equal(((await (await fetch(url)).json()) as { status: string }).status, '000');
    assert.equal(replica.stats.opendart.refusedDay, 1);
  });

  it('Polygon: the sixth call within a minute is refused with 429; a minute later it answers', async () => {
    const url = `${replica.env['US_PRICES_BASE_URL']}/v2/aggs/grouped/locale/us/market/stocks/2026-11-20?adjusted=true&apiKey=k`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(url).then(async (r) => (await r.arrayBuffer(), r))).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    clock.advance(60_000);
    assert.equal((await fetch(url)).status, 200);
  });

  it('SEC: 403 without a declared User-Agent; the eleventh request within a second is refused with 403', async () => {
    const url = `${replica.env['SEC_BASE_URL']}/files/company_tickers.json`;
    const undeclared = await fetch(url, { headers: { 'user-agent': 'node' } });
    await undeclared.arrayBuffer();
    assert.equal(undeclared.status, 403);
    // The undeclared call is refused before it is counted against the rate: a fresh second follows.
    clock.advance(1_000);
    const statuses: number[] = [];
    const headers = { 'user-agent': 'rehearsal test@example.com' };
    for (let i = 0; i < 11; i++) statuses.push((await fetch(url, { headers }).then(async (r) => (await r.arrayBuffer(), r))).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), 403]);
  });

  it('data.go.kr: past the daily traffic the gateway\'s code 22 envelope; the FSC adapter stops paced with the dates it has', async () => {
    // The clock stands at 10:00 Seoul + 14 h (OpenDART) + 60 s (Polygon) + 1 s (SEC) from the
    // tests before: 2026-11-26 00:01:01 Seoul, a fresh data.go.kr day (allowance 2 here).
    assert.equal(clock.now(), START + 14 * 3_600_000 + 61_000);
    const source = new FscSource({ serviceKey: 'k', baseUrl: replica.env['FSC_BASE_URL'], retries: 0, clock: () => new Date(clock.now()) });
    const patches: ProgressPatch[] = [];
    const progress = (p: ProgressPatch): void => void patches.push(p);
    const last = (): ProgressPatch => Object.assign({}, ...patches) as ProgressPatch;
    // asOf 2026-11-25 (no ctx.now: the adapter takes asOf as the newest date): a fresh walk goes
    // back from 11-25. 11-25 and 11-24 answer (the replica publishes through yesterday, 11-25),
    // 5 copies each; the third call (11-23) is past the day's 2 and answers code 22.
    const first = await source.ingest(context({ asOf: '2026-11-25', cursor: null, fetch: globalThis.fetch, progress }));
    assert.deepEqual([...new Set((first.data.bars ?? []).map((b) => b.date))], ['2026-11-25', '2026-11-24']);
    assert.equal((first.data.bars ?? []).length, 10);
    assert.deepEqual((first.data.securities ?? []).map((x) => x.code).sort(), ['900000', '900001', '900002', '900003', '900004']);
    // What was kept: the walk's newest date and the oldest walked, not complete.
    assert.deepEqual(JSON.parse(first.cursor ?? 'null'), { date: '2026-11-25', back: '2026-11-24', complete: false });
    // The provider said the allowance is used: the meter counts the day's 10,000 (3 calls made).
    assert.deepEqual(first.calls, { day: '2026-11-26', calls: 10_000 });
    // The window: 2016-11-24 (3,653 days before asOf) to 2026-11-25 is 3,654 days = 522 weeks,
    // 5 weekdays each: 2,610 dates, 2 done. nextTryAt: the next Seoul midnight, 2026-11-27 00:00
    // Seoul = 2026-11-26T15:00Z. ETA: 86,339 s to that reset (23:58:59) + the 2,608 dates left
    // at 200 ms apart (5 a second) = 521.6 s: ceil(86,860.6) = 86,861 s.
    const paced = last();
    assert.equal(paced.phase, 'paced');
    assert.equal(paced.done, 2);
    assert.equal(paced.total, 2_610);
    assert.equal(paced.callsToday, 10_000);
    assert.equal(paced.dailyAllowance, 10_000);
    assert.equal(paced.nextTryAt?.toISOString(), '2026-11-26T15:00:00.000Z');
    assert.equal(paced.etaSeconds, 86_861);
    assert.equal(paced.note, "the day's allowance of 10000 calls is used; 2608 days left");
    assert.equal(replica.stats.fsc.calls, 3);
    assert.equal(replica.stats.fsc.refusedDay, 1);
    // The same day, resumed from the cursor: the meter refuses before any call; nothing new, the cursor kept.
    patches.length = 0;
    const second = await source.ingest(context({ asOf: '2026-11-25', cursor: first.cursor ?? null, fetch: globalThis.fetch, progress }));
    assert.deepEqual(second.data.bars, []);
    assert.equal(second.cursor, first.cursor);
    assert.equal(replica.stats.fsc.calls, 3);
    assert.deepEqual({ phase: last().phase, done: last().done, nextTryAt: last().nextTryAt?.toISOString() }, { phase: 'paced', done: 2, nextTryAt: '2026-11-26T15:00:00.000Z' });
  });

  it('KRX Open API: 401 without AUTH_KEY; the adapter walks the replica by date and stops paced at its allowance, before the replica refuses', async () => {
    const base = replica.env['KRX_OPENAPI_BASE_URL'] as string;
    const anonymous = await fetch(`${base}/sto/stk_bydd_trd?basDd=20261124`);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { respMsg: 'Unauthorized Key', respCode: '401' });
    // The replica judges 4 calls a day here (the refused call above is one); the adapter's meter
    // allows 3 and stops before a 4th, so the replica refuses none of them.
    const source = new KrxOpenApiSource({ authKey: 'k', baseUrl: base, retries: 0, dailyAllowance: 3, clock: () => new Date(clock.now()) });
    const patches: ProgressPatch[] = [];
    const result = await source.ingest(context({ asOf: '2026-11-25', cursor: null, fetch: globalThis.fetch, progress: (p) => void patches.push(p) }));
    // 11-25 (both markets, 5 copies: 2 KOSPI + 3 KOSDAQ), then 11-24 KOSPI only (2): the allowance.
    assert.deepEqual(
      (result.data.bars ?? []).map((b) => `${b.date} ${b.code}`),
      ['2026-11-25 900000', '2026-11-25 900001', '2026-11-25 900002', '2026-11-25 900003', '2026-11-25 900004', '2026-11-24 900000', '2026-11-24 900001'],
    );
    assert.equal(patches.at(-1)?.phase, 'paced');
    assert.deepEqual([replica.stats['krx-openapi'].calls, replica.stats['krx-openapi'].refusedDay], [4, 0]);
    // The anonymous call and the adapter's two KOSPI calls, and its one KOSDAQ call.
    assert.deepEqual(replica.stats['krx-openapi'].byKind, { 'stk_bydd_trd': 3, 'ksq_bydd_trd': 1 });
    // A fifth call the same day is past the replica's allowance: 429.
    const past = await fetch(`${base}/sto/stk_bydd_trd?basDd=20261124`, { headers: { AUTH_KEY: 'k' } });
    await past.arrayBuffer();
    assert.equal(past.status, 429);
  });

  it('KRX: 400 LOGOUT without a session; the member sign-in flow opens one (CD011 on a second session unless skipDup=Y)', async () => {
    const base = replica.env['KRX_BASE_URL'] as string;
    const data = `${base}/comm/bldAttendant/getJsonData.cmd`;
    const form = 'bld=dbms/MDC/STAT/standard/MDCSTAT02401&mktId=STK&invstTpCd=9000&strtDd=20261124&endDd=20261124';
    const post = (url: string, body: string, cookie?: string) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) } });
    const anonymous = await post(data, form);
    assert.equal(anonymous.status, 400);
    assert.equal(await anonymous.text(), 'LOGOUT');
    const signIn = async (password: string, skipDup = false): Promise<{ cookie: string; code: string }> => {
      const page = await fetch(`${base}/contents/MDC/COMS/client/MDCCOMS001.cmd`);
      await page.arrayBuffer();
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const res = await post(`${base}/contents/MDC/COMS/client/MDCCOMS001D1.cmd`, `mbrId=${KRX_MEMBER.id}&pw=${password}${skipDup ? '&skipDup=Y' : ''}`, cookie);
      return { cookie, code: ((await res.json()) as { _error_code: string })._error_code };
    };
    assert.equal((await signIn('wrong')).code, 'CD002');
    const first = await signIn(KRX_MEMBER.password);
    assert.equal(first.code, 'CD001');
    const rows = (await (await post(data, form, first.cookie)).json()) as { output: { ISU_SRT_CD: string }[] };
    // Scale 0.002: 5 KR copies, 2 of them on KOSPI (STK): 900000 and 900001.
    assert.deepEqual(rows.output.map((r) => r.ISU_SRT_CD), ['900000', '900001']);
    const second = await signIn(KRX_MEMBER.password);
    assert.equal(second.code, 'CD011');
    assert.equal((await signIn(KRX_MEMBER.password, true)).code, 'CD001');
    // The first session was displaced by the second sign-in.
    assert.equal((await post(data, form, first.cookie)).status, 400);
  });

  it('KIS: a token at most once a minute (403 EGW00133), the same token again within six hours, EGW00123 without it, 500 EGW00201 on the 21st call within a second', async () => {
    const base = replica.env['KIS_BASE_URL'] as string;
    const issue = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${base}/oauth2/tokenP`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', appkey: KIS_APP.key, appsecret: KIS_APP.secret }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    clock.advance(1_000);
    const first = await issue();
    assert.equal(first.status, 200);
    assert.equal(first.body['expires_in'], 86_400);
    const tooSoon = await issue();
    assert.deepEqual([tooSoon.status, tooSoon.body['error_code']], [403, 'EGW00133']);
    clock.advance(60_000);
    const again = await issue();
    assert.equal(again.body['access_token'], first.body['access_token']);
    const url = `${base}/uapi/domestic-stock/v1/quotations/inquire-investor?FID_COND_MRKT_DIV_CODE=J&FID_INPUT_ISCD=900000`;
    const ask = (token: unknown) => fetch(url, { headers: { authorization: `Bearer ${String(token)}`, appkey: KIS_APP.key, appsecret: KIS_APP.secret, tr_id: 'FHKST01010900', custtype: 'P' } });
    const unknown = await ask('not-a-token');
    assert.deepEqual([unknown.status, ((await unknown.json()) as { msg_cd: string }).msg_cd], [500, 'EGW00123']);
    clock.advance(1_000);
    const answers: { status: number; body: Record<string, unknown> }[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await ask(first.body['access_token']);
      answers.push({ status: res.status, body: (await res.json()) as Record<string, unknown> });
    }
    assert.deepEqual(answers.map((a) => a.status), [...Array(20).fill(200), 500]);
    assert.equal(answers[20]?.body['msg_cd'], 'EGW00201');
    // 30 weekdays newest first, read by the adapter's parser; today's row (a weekday) waits for the close.
    const output = answers[0]?.body['output'] as Record<string, string>[];
    assert.equal(output.length, 30);
    const today = new Date(clock.now() + 9 * 3_600_000).toISOString().slice(0, 10);
    const flows = parseInvestorTrend(answers[0]?.body, '900000') ?? [];
    assert.equal(flows.length, output[0]?.['stck_bsop_date'] === today.replace(/-/g, '') ? 29 : 30);
    assert.ok(flows.every((f) => f.date < today && Number.isInteger(f.foreignNet / 1e6)));
  });
});

describe('the bulk files', () => {
  it('read back through the service\'s ZIP reader: CP949 member names, re-keyed companyfacts', async () => {
    const tmp = tempDir('replica-bulk-');
    try {
      const universe = buildUniverse(0.002);
      const bulk = prepareBulk(universe, '2026-11-25', join(tmp.dir, 'cache'));
      // 2015 annual + 10 years x 4 + 2026 Q1-Q3 = 44 periods, 4 statements each.
      assert.equal(bulk.summary.dartZips, 176);
      const page = bulk.dartListPage();
      const links = [...String(page.body).matchAll(/download_ext002\('(\d{4})','([A-Z]{2})',\s*'([A-Z]{2})',\s*'([^']+)'\)/g)];
      assert.equal(links.length, 176);
      const bs = links.find((l) => l[1] === '2025' && l[2] === 'FQ' && l[3] === 'BS')?.[4] as string;
      const zip = bulk.dartZip(bs);
      assert.ok(zip);
      const names: string[] = [];
      let general = '';
      for await (const m of zipMembers(zip.file)) {
        names.push(m.name);
        if (m.name === '2025_1분기보고서_01_재무상태표_20250522.txt') general = (await import('iconv-lite')).default.decode(await m.bytes(), 'cp949');
      }
      // Ten members: five sectors x separate/consolidated.
      assert.equal(names.length, 10);
      assert.ok(names.includes('2025_1분기보고서_01_재무상태표_은행_연결_20250522.txt'), names.join(' '));
      const rows = general.trim().split('\n').slice(1).map((l) => l.split('\t'));
      assert.deepEqual([...new Set(rows.map((r) => r[1]))], ['[900000]', '[900001]', '[900002]', '[900003]', '[900004]']);
      assert.ok(rows.every((r) => r[7] === '2025-03-31' && r[8] === '1분기보고서'));
      const facts = bulk.secArchive('companyfacts');
      assert.ok(facts);
      const ciks: number[] = [];
      for await (const m of zipMembers(facts.file)) {
        const body = JSON.parse((await m.bytes()).toString('utf8')) as { cik: number; entityName: string; facts: object };
        assert.equal(m.name, `CIK${String(body.cik).padStart(10, '0')}.json`);
        assert.match(body.entityName, /re-keyed copy of [A-Z]+\)$/);
        ciks.push(body.cik);
      }
      // Scale 0.002: max(3, round(12)) = 12 US copies, CIK 9,000,000 to 9,000,011.
      assert.deepEqual(ciks, Array.from({ length: 12 }, (_, i) => 9_000_000 + i));
    } finally {
      tmp.cleanup();
    }
  });
});

describe('the rehearsal', () => {
  it('runs a first start against the replica at a tiny scale and reports per source and the coverage', async () => {
    const tmp = tempDir('rehearsal-');
    try {
      // An OpenDART allowance of 100 a day stands for 20,000, so the backfill meets it. SEC's
      // documented 10 a second: the SEC source and Polygon's share counts take turns in the
      // process's one SEC limiter, so none of their calls is refused (asserted below).
      const result = await rehearse({
        scale: 0.002,
        bulk: true,
        backfill: true,
        krxCookie: false,
        flows: 'krx',
        firstStart: 'api',
        cacheDir: join(tmp.dir, 'cache'),
        logLevel: 'warn',
        keep: false,
        resultsFile: null,
        startAt: '2026-11-25T01:00:00Z',
        limits: { opendart: { perDay: 100, dayOffsetHours: 9 } },
      });
      // Scale 0.002: round(5.4) = 5 KR copies (2 KOSPI), 12 US.
      assert.deepEqual(result.universe, { kr: 5, krKospi: 2, krKosdaq: 3, us: 12, krUnlistedFilers: 194 });
      const by = new Map(result.perSource.map((s) => [s.source, s]));
      // DART's first run: corpCode.xml, one list.json page, and for the 5 Q3 2026 filings one
      // CFS call each plus OFS for the separate-only copy (index 2): 6, and one alotMatter.json
      // each (the dividend section): 5; company.json for all 5.
      assert.deepEqual(by.get('opendart')?.byKind, { 'corpCode.xml': 1, 'list.json': 1, 'fnlttSinglAcntAll.json': 6, 'alotMatter.json': 5, 'company.json': 5 });
      // SEC: company_tickers twice (the SEC source and Polygon's shares), 12 x (companyfacts + submissions), 2 frames.
      assert.deepEqual(by.get('sec')?.byKind, { 'company_tickers.json': 2, companyfacts: 12, submissions: 12, frames: 2 });
      assert.equal(by.get('sec')?.refusedRate, 0);
      // KRX signing in with KRX_ID / KRX_PASSWORD: the sign-in page, login.jsp and the sign-in
      // post (CD001), then the first run's flows: asOf 2026-11-25 10:00 Seoul, the last closed
      // session 11-24; six weeks (42 days) back from it is 10-13; 10-13 to 11-24 holds 31
      // weekdays (six weeks of 5, and 11-24), of which a run takes the first 30 (10-13 to 11-23),
      // 2 markets x 2 investor types each: 120 calls, none refused.
      assert.deepEqual(by.get('krx')?.byKind, {
        '/contents/MDC/COMS/client/MDCCOMS001.cmd': 1,
        '/contents/MDC/COMS/client/view/login.jsp': 1,
        '/contents/MDC/COMS/client/MDCCOMS001D1.cmd': 1,
        '/comm/bldAttendant/getJsonData.cmd': 120,
      });
      assert.equal(by.get('krx')?.calls, 123);
      assert.equal(by.get('krx')?.loggedOut, 0);
      assert.ok(result.service.sources.every((s) => s.ok), JSON.stringify(result.service.sources));
      // Every US 10-K copy has four quarters of facts and prices: 11 scored; the twelfth (index
      // 7) is a 20-F filer reporting in EUR without a USD convenience translation, so without
      // figures in USD (11/12 = 91.7 %). KR: one quarter (the 90-day first run), so no TTM and no score yet.
      assert.deepEqual(result.coverage, [
        { market: 'KR', listed: 5, scored: 0, pct: 0 },
        { market: 'US', listed: 12, scored: 11, pct: 91.7 },
      ]);
      // 44 periodic reports per copy through 2026-11-25; the separate-only copy needs a second call each.
      assert.equal(result.today.dartFilingsTenYears, 5 * 44);
      assert.equal(result.today.dartCallsTenYears, 5 * 44 + 44);
      assert.ok(result.service.readySimulatedMs >= result.service.waitedMs);
      // The backfill: 44 three-month windows (2016 Q1 to 2026 Q4); each run stopped by 020 is
      // refused once and run again the next day; afterwards every KR copy has its quarters.
      const b = result.backfill;
      assert.ok(b);
      assert.equal(b.windows, 44);
      assert.deepEqual(b.failed, []);
      assert.ok(b.runsRefused >= 1);
      assert.equal(b.runs, 44 + b.runsRefused);
      assert.equal(b.dartRefusedDay, b.runsRefused);
      assert.ok(b.simulatedMs >= b.runsRefused * 3_600_000);
      assert.deepEqual(b.coverage, [
        { market: 'KR', listed: 5, scored: 5, pct: 100 },
        { market: 'US', listed: 12, scored: 11, pct: 91.7 },
      ]);
      assert.deepEqual(result.unanswered, []);
    } finally {
      tmp.cleanup();
    }
  });

  it('BENCH_KR_PRICES=krx-openapi: KR prices come from the KRX Open API, FSC is left out', async () => {
    const tmp = tempDir('rehearsal-krx-openapi-');
    try {
      const result = await rehearse({
        scale: 0.002,
        bulk: false,
        backfill: false,
        krxCookie: false,
        firstStart: 'api',
        krPrices: 'krx-openapi',
        cacheDir: join(tmp.dir, 'cache'),
        logLevel: 'warn',
        keep: false,
        resultsFile: null,
        startAt: '2026-11-25T01:00:00Z',
      });
      const by = new Map(result.perSource.map((s) => [s.source, s]));
      assert.equal(by.get('fsc'), undefined);
      // One refresh: 250 dates (the run's bound) from 11-24, the last closed session, back; two
      // markets each; then both listings of 11-24 for the English names: 502 calls, none refused.
      assert.deepEqual(by.get('krx-openapi')?.byKind, { stk_bydd_trd: 250, ksq_bydd_trd: 250, stk_isu_base_info: 1, ksq_isu_base_info: 1 });
      assert.deepEqual([by.get('krx-openapi')?.refusedDay, by.get('krx-openapi')?.unanswered], [0, 0]);
      assert.ok(result.service.sources.every((x) => x.ok), JSON.stringify(result.service.sources));
      assert.ok(result.service.sources.some((x) => x.source === 'krx-openapi'));
      // Every KR copy priced from it.
      assert.deepEqual(result.served.health.find((m) => m.market === 'KR'), { market: 'KR', listed: 5, priced: 5, scored: 0, complete: 0 });
      assert.deepEqual(result.unanswered, []);
    } finally {
      tmp.cleanup();
    }
  });

  it('rehearses the bulk path (what `serve` does): the files downloaded and imported, the API sources beside and after them, every copy scored', async () => {
    const tmp = tempDir('rehearsal-bulk-');
    try {
      const result = await rehearse({
        scale: 0.002,
        bulk: true,
        backfill: false,
        krxCookie: false,
        cacheDir: join(tmp.dir, 'cache'),
        logLevel: 'warn',
        keep: false,
        resultsFile: null,
        startAt: '2026-11-25T01:00:00Z',
        firstStart: 'bulk',
      });
      assert.equal(result.firstStart, 'bulk');
      const by = new Map(result.perSource.map((s) => [s.source, s]));
      // The list page, then BS, PL and CF (CE is not read) of 44 periods (2015 annual, 2016 to
      // 2025 x 4, 2026 Q1-Q3): 132 ZIPs. SEC: the two nightly archives, once each.
      assert.deepEqual(by.get('opendart-bulk')?.byKind, { 'bulk list page': 1, 'bulk quarterly ZIP': 132 });
      assert.deepEqual(by.get('sec-bulk')?.byKind, { 'companyfacts.zip': 1, 'submissions.zip': 1 });
      // The ECB's file twice: the SEC archive's read converts at it, and the ECB source's first run
      // beside the import stores it (the run after the import, the same Seoul day, asks nothing).
      assert.deepEqual(by.get('ecb')?.byKind, { 'eurofxref-hist.zip': 2 });
      // The flows from KIS (the default): one token, then beside the import one call per KR copy
      // FSC placed (5), each answering 30 weekdays through 11-24, the last closed session; after
      // the import every copy is through 11-24 already: no call. The KRX marketplace is not asked.
      assert.deepEqual(by.get('kis')?.byKind, { tokenP: 1, 'inquire-investor': 5 });
      assert.equal(by.get('krx'), undefined);
      // FSC runs beside the import and after it, 250 dates a run, newest first: 500.
      assert.equal(by.get('fsc')?.calls, 500);
      // Polygon runs after the import only (its bars need the US placement): its first run asks
      // the latest 30 weekdays (FIRST_RUN_DAYS), under the 200 a run its 40-minute budget allows.
      assert.equal(by.get('polygon')?.calls, 30);
      for (const s of result.perSource) assert.deepEqual([s.source, s.refusedRate, s.refusedDay, s.loggedOut, s.unanswered], [s.source, 0, 0, 0, 0]);
      assert.ok(result.service.sources.every((x) => x.ok), JSON.stringify(result.service.sources));
      // Every copy has ten years of statements from the files and prices: all scored but the
      // 20-F filer (index 7), whose EUR figures (no USD convenience translation) are converted at
      // the replica's ECB reference rates and served (PER below), its score undefined for the
      // company as the replica's other foreign filers' are.
      assert.deepEqual(result.coverage, [
        { market: 'KR', listed: 5, scored: 5, pct: 100 },
        { market: 'US', listed: 12, scored: 11, pct: 91.7 },
      ]);
      // The store lists and prices all 12 US copies, the 20-F filer too; 11 scored (0.9167).
      assert.deepEqual(result.served.health, [
        { market: 'KR', listed: 5, priced: 5, scored: 5, complete: 1 },
        { market: 'US', listed: 12, priced: 12, scored: 11, complete: 0.9167 },
      ]);
      assert.deepEqual(result.served.readyz, result.served.health);
      // The service's coverage per metric, as the rehearsal keeps it: PER for every KR copy and
      // every US one, the EUR 20-F filer's at the ECB's rates; the store lists every listing, so
      // the lines over the replica's listings are the same.
      const zero = { noPrice: 0, noFilingsYet: 0, filingsIncomplete: 0, notCovered: 0, undefinedForCompany: 0, noFlows: 0, noFxRate: 0, notApplicable: 0, other: 0 };
      const mc = result.metricCoverage;
      assert.deepEqual(mc.metrics.filter((m) => m.metric === 'per'), [
        { metric: 'per', market: 'KR', percentile: true, listed: 5, applicable: 5, withValues: 5, complete: 1, nulls: zero },
        { metric: 'per', market: 'US', percentile: true, listed: 12, applicable: 12, withValues: 12, complete: 1, nulls: zero },
      ]);
      assert.deepEqual(mc.overListings, mc.metrics);
      assert.equal(mc.metrics.filter((m) => m.percentile).length, 34);
      assert.deepEqual(mc.servedShare, [
        { market: 'KR', listings: 5, listed: 5, priced: 5, pct: 100 },
        { market: 'US', listings: 12, listed: 12, priced: 12, pct: 100 },
      ]);
      assert.equal(result.served.readyzStatus, 'ready');
      // Polygon's window: 730 days back from 2026-11-24 (the last closed US session at 10:00
      // Seoul) is 2024-11-24, a Sunday; the 731 days are 104 weeks (520 weekdays) and Sun 11-22,
      // Mon 11-23, Tue 11-24 (2 more): 522 dates, 30 walked, 492 left = 492 x 12 s = 5,904 s,
      // the board's own ETA too: the walk waits for the next run with its ETA kept.
      const ph = result.priceHistory;
      assert.deepEqual(
        { phase: ph?.phase, done: ph?.done, total: ph?.total, eta: ph?.etaSeconds, left: ph?.remainingDays, s: ph?.remainingSecondsAtPlanRate },
        { phase: 'waiting', done: 30, total: 522, eta: 5_904, left: 492, s: 5_904 },
      );
      // FSC's window: 2016-11-24 (3,653 days before 11-25), a Thursday, to 11-24: 521 weeks
      // (2,605 weekdays) and Thu 11-19 to Tue 11-24 (4 more): 2,609 dates, 500 walked.
      const fsc = result.progress.find((p) => p.source === 'fsc');
      assert.deepEqual([fsc?.done, fsc?.total], [500, 2_609]);
      assert.ok(result.service.firstDataset.realMs <= result.service.readyRealMs);
      // The dividend backfill after the import: the bulk files have no dividend section, so every
      // filing of the 5 KR copies lacks one: 44 periods each (2015 annual, 2016-2025 x 4, 2026
      // Q1-Q3) = 220 alotMatter.json calls, each a filed report the replica answers (a figure, or
      // `-` = 0 for a copy that pays none), each written; 221 calls with corpCode.xml, well inside
      // the day's 20,000 less the 5,000 reserve: done in one pass.
      const d = result.dividends;
      assert.deepEqual(
        d && { status: d.status, calls: d.calls, replicaCalls: d.replicaCalls, figures: d.figures, noData: d.noData, written: d.written, left: d.left },
        { status: 'done', calls: 220, replicaCalls: 220, figures: 220, noData: 0, written: 220, left: 0 },
      );
      // So every KR copy is served its dividend figures.
      for (const metric of ['dividendPerShare', 'dividendPerShareFy', 'dividendYield']) {
        assert.deepEqual(mc.metrics.filter((m) => m.metric === metric && m.market === 'KR').map((m) => [m.metric, m.withValues, m.listed]), [[metric, 5, 5]]);
      }
      assert.equal(result.progress.find((p) => p.source === 'opendart-dividends')?.phase, 'done');
      assert.deepEqual(result.unanswered, []);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('the per-metric lines over the replica\'s listings', () => {
  it('adds the listings the store does not list to listed and to the other nulls, and recomputes applicable and complete', () => {
    const zero = { noPrice: 0, noFilingsYet: 0, filingsIncomplete: 0, notCovered: 0, undefinedForCompany: 0, noFlows: 0, noFxRate: 0, notApplicable: 0, other: 0 };
    // US: the store lists 10 of the replica's 12; 7 with a value, 1 not applicable, 1 undefined
    // for the company, 1 noFilingsYet. Over 12: listed 12, applicable 12 - 1 - 1 = 10, other 2,
    // complete 7 / 10 = 0.7. KR: all listed, unchanged.
    const us = { metric: 'currentRatio', market: 'US' as const, percentile: true, listed: 10, applicable: 8, withValues: 7, complete: 0.875, nulls: { ...zero, notApplicable: 1, undefinedForCompany: 1, noFilingsYet: 1 } };
    const kr = { metric: 'currentRatio', market: 'KR' as const, percentile: true, listed: 5, applicable: 5, withValues: 5, complete: 1, nulls: zero };
    assert.deepEqual(overListings([kr, us], { KR: 5, US: 12 }), [kr, { ...us, listed: 12, applicable: 10, complete: 0.7, nulls: { ...us.nulls, other: 2 } }]);
  });
});
