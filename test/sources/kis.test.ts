import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pacingNow, setPacingTimer, SourceHttpError, type PacingTimer } from '../../src/sources/http.js';
import { kisFailure, parseInvestorTrend, parseToken } from '../../src/sources/kis/parse.js';
import { INVESTOR_PATH, INVESTOR_TR_ID, KisSource, readKisCursor, writeKisCursor } from '../../src/sources/kis/source.js';
import { TOKEN_PATH } from '../../src/sources/kis/token.js';
import { realJson } from '../e2e/upstream.js';
import { context, loopback, type Recorded, type Reply } from './helpers.js';

// The recorded answer (test/fixtures/real/kis, PROVENANCE.md): Samsung Electronics asked on
// 2024-06-11 during the session. Row 20240611 is empty strings; row 20240610 has
// frgn_ntby_tr_pbmn "-143714" and orgn_ntby_tr_pbmn "-175760", millions of won.
const RECORDED = realJson<unknown>('kis/inquire-investor_005930_20240611.json');
const RECORDED_TEXT = JSON.stringify(RECORDED);
// -143,714 million won = -143,714 x 1,000,000 = -143,714,000,000 won; -175,760 x 1,000,000 likewise.
const SAMSUNG_0610 = { market: 'KR', code: '005930', date: '2024-06-10', foreignNet: -143_714_000_000, institutionNet: -175_760_000_000, source: 'kis' } as const;

const APP_KEY = 'PSappkey0123456789abcdefghijklmnopq';
const APP_SECRET = 'secretSECRET0123456789/+secretSECRET0123456789==';

/** The n-th token the loopback issues (made up; as long as real ones, so redaction applies). */
const tk = (i: number): string => `test-access-token-${i}-eyJ0eXAiOiJKV1Qi`;
/** The token answer in the documented shape (KIS Developers 접근토큰발급(P)); the token text is made up for the test. */
const tokenAnswer = (token: string, expired = '2099-12-31 09:00:00'): Reply => ({
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ access_token: token, access_token_token_expired: expired, token_type: 'Bearer', expires_in: 86400 }),
});
/** KIS's error envelope in the documented shape (test-made, see PROVENANCE.md "kis"). */
const kisError = (status: number, msgCd: string, msg1: string): Reply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rt_cd: '1', msg_cd: msgCd, msg1 }) });

/** A pacing clock on which a wait costs no time: `sleeps` lists what was waited. */
function fakeClock(start: number): PacingTimer & { at: number; sleeps: number[] } {
  const c = {
    at: start,
    sleeps: [] as number[],
    now: () => c.at,
    sleep: (ms: number) => {
      c.sleeps.push(ms);
      c.at += ms;
      return Promise.resolve();
    },
  };
  return c;
}

/** A KIS loopback: tokens tk(1), tk(2), ... from tokenP; inquire-investor answered by `data`. */
async function kisServer(data: (req: Recorded, token: string) => Reply, token: (n: number) => Reply = (n) => tokenAnswer(tk(n))) {
  let issued = 0;
  const server = await loopback((req) => {
    if (req.url.pathname === TOKEN_PATH) return token(++issued);
    if (req.url.pathname === INVESTOR_PATH) return data(req, (req.headers['authorization'] ?? '').replace(/^Bearer /, ''));
    return { status: 404, body: 'no route' };
  });
  const gets = (): Recorded[] => server.requests.filter((r) => r.url.pathname === INVESTOR_PATH);
  const posts = (): Recorded[] => server.requests.filter((r) => r.url.pathname === TOKEN_PATH);
  return { ...server, gets, posts };
}

const universe = (codes: string[]) => (market: string) => Promise.resolve(market === 'KR' ? codes : []);

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kis-test-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tokenFile = (): string => join(dir, `data${++n}`, 'kis', 'token.json');

describe('KIS parsers', () => {
  it('reads the recorded investor trend: filled sessions only, amounts from millions of won to won', () => {
    assert.deepEqual(parseInvestorTrend(RECORDED, '005930'), [SAMSUNG_0610]);
    assert.equal(kisFailure(RECORDED), null);
    assert.equal(parseInvestorTrend({ rt_cd: '0' }, '005930'), null);
    assert.deepEqual(parseInvestorTrend({ output: [{ stck_bsop_date: '20240610', frgn_ntby_tr_pbmn: '12', orgn_ntby_tr_pbmn: '' }] }, '005930'), []);
  });

  it('reads error envelopes of the data calls and of the token issuance', () => {
    assert.deepEqual(kisFailure({ rt_cd: '1', msg_cd: 'EGW00201', msg1: '초당 거래건수를 초과하였습니다.' }), { code: 'EGW00201', message: '초당 거래건수를 초과하였습니다.' });
    assert.deepEqual(kisFailure({ error_code: 'EGW00133', error_description: '접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)' }), { code: 'EGW00133', message: '접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)' });
  });

  it('takes the stated expiry as Seoul wall time, else issue time plus expires_in', () => {
    // 2024-06-13 09:00:00 in Seoul (UTC+9) is 2024-06-13T00:00:00Z.
    assert.deepEqual(parseToken({ access_token: 'A', access_token_token_expired: '2024-06-13 09:00:00', expires_in: 86400 }, 0), { accessToken: 'A', expiresAt: Date.parse('2024-06-13T00:00:00Z') });
    assert.deepEqual(parseToken({ access_token: 'A', expires_in: 86400 }, 1_000), { accessToken: 'A', expiresAt: 1_000 + 86_400_000 });
    assert.equal(parseToken({ access_token: '', expires_in: 86400 }, 0), null);
    assert.equal(parseToken({ access_token: 'A' }, 0), null);
  });

  it('keeps the cursor small and reads it back', () => {
    const c = new Map([['005930', '2024-06-10'], ['000660', '2024-06-10'], ['035420', '2024-06-07']]);
    const text = writeKisCursor(c);
    assert.equal(text, '{"v":1,"through":{"2024-06-10":["000660","005930"],"2024-06-07":["035420"]}}');
    assert.deepEqual(readKisCursor(text), c);
    assert.deepEqual(readKisCursor(null), new Map());
    assert.equal(readKisCursor('2024-06-10'), null);
  });
});

describe('KisSource against the recorded answer on loopback', () => {
  it('signs in once, asks each listed stock with the documented headers, and keeps the filled sessions', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: tokenFile() });
      // asOf 2024-06-12: sessions through 2024-06-11 are asked for; that row is still empty in the answer.
      const result = await source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930', 'Q12345']) }));
      assert.deepEqual(result.data.flows, [SAMSUNG_0610]);
      assert.equal(result.cursor, '{"v":1,"through":{"2024-06-10":["005930"]}}');
      const [post] = server.posts();
      assert.deepEqual(JSON.parse(post?.body ?? ''), { grant_type: 'client_credentials', appkey: APP_KEY, appsecret: APP_SECRET });
      const [get] = server.gets();
      assert.equal(server.gets().length, 1, 'a code that is not six digits is not asked');
      assert.equal(get?.url.search, '?FID_COND_MRKT_DIV_CODE=J&FID_INPUT_ISCD=005930');
      assert.equal(get?.headers['authorization'], `Bearer ${tk(1)}`);
      assert.equal(get?.headers['appkey'], APP_KEY);
      assert.equal(get?.headers['appsecret'], APP_SECRET);
      assert.equal(get?.headers['tr_id'], INVESTOR_TR_ID);
      assert.equal(get?.headers['custtype'], 'P');
    } finally {
      await server.close();
    }
  });

  it('later runs ask only stocks behind the last closed session and keep only sessions after each cursor', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: tokenFile() });
      const cursor = writeKisCursor(new Map([['005930', '2024-06-07'], ['000660', '2024-06-10'], ['035420', '2024-06-10']]));
      // asOf 2024-06-11: through 2024-06-10. 000660 and 035420 have it; 005930 is behind.
      const result = await source.ingest(context({ asOf: '2024-06-11', cursor, universe: universe(['000660', '005930', '035420']) }));
      assert.deepEqual(server.gets().map((r) => r.url.searchParams.get('FID_INPUT_ISCD')), ['005930']);
      assert.deepEqual(result.data.flows, [SAMSUNG_0610]);
      assert.equal(result.cursor, '{"v":1,"through":{"2024-06-10":["000660","005930","035420"]}}');
      // Nothing new: the same day again asks nothing.
      server.requests.length = 0;
      const again = await source.ingest(context({ asOf: '2024-06-11', cursor: result.cursor, universe: universe(['000660', '005930', '035420']) }));
      assert.equal(server.gets().length, 0);
      assert.deepEqual(again.data.flows, []);
      // A stock already through 2024-06-10 asked again for 2024-06-11 keeps nothing old.
      const later = await source.ingest(context({ asOf: '2024-06-12', cursor: result.cursor, universe: universe(['005930']) }));
      assert.equal(server.gets().length, 1);
      assert.deepEqual(later.data.flows, []);
    } finally {
      await server.close();
    }
  });

  it('reports progress per stock', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null });
      const patches: Record<string, unknown>[] = [];
      await source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930', '000660']), progress: (p) => void patches.push({ ...p }) }));
      assert.equal(patches[0]?.['phase'], 'calling');
      assert.equal(patches[0]?.['unit'], 'stocks');
      assert.equal(patches[0]?.['total'], 2);
      assert.deepEqual(patches.at(-1), { phase: 'done', done: 2, total: 2, etaSeconds: 0, nextTryAt: null, note: null, callsToday: 3, dailyAllowance: null });
    } finally {
      await server.close();
    }
  });
});

describe('KIS per-run bound', () => {
  it('asks never-asked stocks first, at most maxStocksPerRun, and says the next run continues', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null, maxStocksPerRun: 1 });
      const patches: Record<string, unknown>[] = [];
      const cursor = writeKisCursor(new Map([['000660', '2024-06-07']]));
      const result = await source.ingest(context({ asOf: '2024-06-12', cursor, universe: universe(['000660', '005930']), progress: (p) => void patches.push({ ...p }) }));
      assert.deepEqual(server.gets().map((r) => r.url.searchParams.get('FID_INPUT_ISCD')), ['005930']);
      assert.equal(result.cursor, '{"v":1,"through":{"2024-06-07":["000660"],"2024-06-10":["005930"]}}');
      assert.equal(patches.at(-1)?.['phase'], 'waiting');
      assert.equal(patches.at(-1)?.['note'], "1 stock left past this run's bound of 1: the next run continues");
    } finally {
      await server.close();
    }
  });
});

describe('KIS token lifecycle', () => {
  it('reuses the kept token after a restart without a second issuance; the file is 0600 in a 0700 directory and holds neither key nor secret', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    const file = tokenFile();
    try {
      const first = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: file });
      await first.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      // A new process: a new adapter on the same DATA_DIR.
      const restarted = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: file });
      await restarted.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      assert.equal(server.posts().length, 1);
      assert.equal(restarted.tokens.issuances, 0);
      assert.deepEqual(server.gets().map((r) => r.headers['authorization']), [`Bearer ${tk(1)}`, `Bearer ${tk(1)}`]);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
      const kept = readFileSync(file, 'utf8');
      assert.ok(kept.includes(tk(1)));
      assert.ok(!kept.includes(APP_KEY) && !kept.includes(APP_SECRET));
      // Another app key does not take this key's token.
      const other = new KisSource({ appKey: 'PSotherkey0123456789abcdefghijklmn', appSecret: APP_SECRET, baseUrl: server.base, tokenFile: file });
      await other.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      assert.equal(server.posts().length, 2);
    } finally {
      await server.close();
    }
  });

  it('renews an hour before the stated expiry, and never issues twice within a minute', async () => {
    // Issued at 2024-06-12 09:00 Seoul, expiring 2024-06-13 09:00 Seoul (00:00Z).
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    const server = await kisServer(() => ({ body: RECORDED_TEXT }), (i) => tokenAnswer(tk(i), i === 1 ? '2024-06-13 09:00:00' : '2024-06-14 09:00:00'));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: tokenFile(), requestsPerSecond: 1000 });
      const run = () => source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      await run();
      // 61 minutes before expiry: still good.
      clock.at = Date.parse('2024-06-13T00:00:00Z') - 61 * 60_000;
      await run();
      assert.equal(server.posts().length, 1);
      // 59 minutes before expiry: renewed first.
      clock.at = Date.parse('2024-06-13T00:00:00Z') - 59 * 60_000;
      await run();
      assert.equal(server.posts().length, 2);
      assert.deepEqual(server.gets().map((r) => r.headers['authorization']), [`Bearer ${tk(1)}`, `Bearer ${tk(1)}`, `Bearer ${tk(2)}`]);
    } finally {
      restore();
      await server.close();
    }
  });

  it('renews a token the API calls expired (EGW00123) once, waiting out the minute between issuances', async () => {
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    const issuedAt: number[] = [];
    const server = await kisServer(
      (_req, token) => (token === tk(1) ? kisError(500, 'EGW00123', '기간이 만료된 token 입니다.') : { body: RECORDED_TEXT }),
      (i) => {
        issuedAt.push(pacingNow());
        return tokenAnswer(tk(i));
      },
    );
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: tokenFile(), requestsPerSecond: 1000 });
      const result = await source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      assert.deepEqual(result.data.flows, [SAMSUNG_0610]);
      assert.deepEqual(server.gets().map((r) => r.headers['authorization']), [`Bearer ${tk(1)}`, `Bearer ${tk(2)}`]);
      assert.equal(issuedAt.length, 2);
      assert.ok((issuedAt[1] ?? 0) - (issuedAt[0] ?? 0) >= 60_000, `issuances ${issuedAt.join(', ')} a minute apart`);
    } finally {
      restore();
      await server.close();
    }
  });

  it('fails clearly when the API refuses a token issued just now', async () => {
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    const server = await kisServer(() => kisError(500, 'EGW00123', '기간이 만료된 token 입니다.'));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: tokenFile(), requestsPerSecond: 1000 });
      await assert.rejects(source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) })), (err: unknown) => err instanceof SourceHttpError && err.kind === 'upstream' && /EGW00123.*issued just now/.test(err.message));
      assert.equal(server.posts().length, 2);
    } finally {
      restore();
      await server.close();
    }
  });
});

describe('KIS pacing and refusals', () => {
  it('spaces calls at the documented 20 a second on the pacing clock', async () => {
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    const at: number[] = [];
    const server = await kisServer(() => {
      at.push(pacingNow());
      return { body: RECORDED_TEXT };
    });
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null });
      await source.ingest(context({ asOf: '2024-06-12', universe: universe(['000010', '000020', '000030', '000040', '000050', '000060']) }));
      assert.equal(at.length, 6);
      // 1,000 ms / 20 = 50 ms between call starts; any 1,000 ms holds at most 20 calls.
      for (let i = 1; i < at.length; i++) assert.ok((at[i] ?? 0) - (at[i - 1] ?? 0) >= 50, `calls ${i - 1} and ${i} ${(at[i] ?? 0) - (at[i - 1] ?? 0)} ms apart`);
    } finally {
      restore();
      await server.close();
    }
  });

  it('waits a second and asks again when over the rate (EGW00201, HTTP 500)', async () => {
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    let calls = 0;
    const server = await kisServer(() => (++calls === 1 ? kisError(500, 'EGW00201', '초당 거래건수를 초과하였습니다.') : { body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null, requestsPerSecond: 1000 });
      const result = await source.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) }));
      assert.deepEqual(result.data.flows, [SAMSUNG_0610]);
      assert.equal(server.gets().length, 2);
      assert.ok(clock.sleeps.includes(1_000));
    } finally {
      restore();
      await server.close();
    }
  });

  it('counts a stock refused or answered malformed as skipped; fails clearly when every stock is', async () => {
    const server = await kisServer((req) => {
      const code = req.url.searchParams.get('FID_INPUT_ISCD');
      if (code === '000010') return { body: '<html>maintenance</html>' };
      if (code === '000020') return { body: JSON.stringify({ rt_cd: '1', msg_cd: 'TEST0001', msg1: 'test-made refusal' }) };
      if (code === '000030') return { body: '{"rt_cd":"0","msg_cd":"MCA00000"}' };
      return { body: RECORDED_TEXT };
    });
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null, requestsPerSecond: 1000 });
      const result = await source.ingest(context({ asOf: '2024-06-12', universe: universe(['000010', '000020', '000030', '005930']) }));
      assert.deepEqual(result.data.flows, [SAMSUNG_0610]);
      assert.deepEqual(result.skipped, { 'inquire-investor answer is not JSON': 1, 'inquire-investor TEST0001 test-made refusal': 1, 'inquire-investor answer without an output list': 1 });
      // Refused stocks stay behind: asked again next run.
      assert.equal(result.cursor, '{"v":1,"through":{"2024-06-10":["005930"]}}');
      await assert.rejects(
        source.ingest(context({ asOf: '2024-06-12', universe: universe(['000010', '000020']) })),
        (err: unknown) => err instanceof SourceHttpError && err.kind === 'upstream' && /every inquire-investor call of the run was refused \(first: 000010: answer is not JSON\)/.test(err.message),
      );
    } finally {
      await server.close();
    }
  });

  it('never puts the app key, the app secret or a token in an error or a log line', async () => {
    const clock = fakeClock(Date.parse('2024-06-12T00:00:00Z'));
    const restore = setPacingTimer(clock);
    // A misbehaving upstream that echoes what it was sent.
    const server = await kisServer((req, token) => ({ status: 502, body: `bad gateway for ${token} ${String(req.headers['appsecret'])} ${String(req.headers['appkey'])}` }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null, requestsPerSecond: 1000, retries: 1, backoffMs: 10 });
      const ctx = context({ asOf: '2024-06-12', universe: universe(['005930']) });
      let message = '';
      await assert.rejects(source.ingest(ctx), (err: unknown) => {
        message = err instanceof Error ? err.message : String(err);
        return err instanceof SourceHttpError && err.kind === 'http' && err.status === 502;
      });
      assert.ok(message.includes('bad gateway for *** *** ***'), message);
      assert.ok(ctx.log.lines.length > 0, 'the retry was logged');
      for (const text of [message, ...ctx.log.lines]) {
        for (const secret of [APP_KEY, APP_SECRET, tk(1)]) assert.ok(!text.includes(secret), `"${text}" holds a secret`);
      }
      // The token issuance refused with an answer that echoes the secret.
      const refusing = await kisServer(() => ({ body: RECORDED_TEXT }), () => ({ status: 403, body: JSON.stringify({ error_code: 'EGW00103', error_description: `유효하지 않은 AppKey입니다 ${APP_SECRET}` }) }));
      try {
        const s2 = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: refusing.base, tokenFile: null });
        await assert.rejects(s2.ingest(context({ asOf: '2024-06-12', universe: universe(['005930']) })), (err: unknown) => {
          const m = err instanceof Error ? err.message : '';
          return err instanceof SourceHttpError && /token issuance refused \(HTTP 403, EGW00103/.test(m) && !m.includes(APP_SECRET);
        });
      } finally {
        await refusing.close();
      }
    } finally {
      restore();
      await server.close();
    }
  });

  it('asks nothing without a universe, and says so', async () => {
    const server = await kisServer(() => ({ body: RECORDED_TEXT }));
    try {
      const source = new KisSource({ appKey: APP_KEY, appSecret: APP_SECRET, baseUrl: server.base, tokenFile: null });
      const ctx = context({ asOf: '2024-06-12' });
      const result = await source.ingest(ctx);
      assert.deepEqual(result.data.flows, []);
      assert.equal(server.requests.length, 0);
      assert.ok(ctx.log.lines.some((l) => l.startsWith('kis: no universe')));
    } finally {
      await server.close();
    }
  });
});
