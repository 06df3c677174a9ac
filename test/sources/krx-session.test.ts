// The KRX member sign-in against a loopback marketplace. The sign-in answers are constructed in
// the format KRX's MDCCOMS001D1.cmd returns (`{"_error_code":"CD001","_error_message":...}`, as
// FinanceData/marcap krx_marcap.py and pykrx's login helpers read it; FORMATS.md section 4): no
// recording of a sign-in exists. The data answers are the hand-written MDCSTAT02401 fixtures.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceHttpError } from '../../src/sources/http.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { KrxSource } from '../../src/sources/krx/source.js';
import { setCookies } from '../../src/sources/krx/session.js';
import { context, fixture, loopback, type Recorded, type Reply } from './helpers.js';

const ID = 'member01';
const PASSWORD = 'pw+Secret/Ünï=42';
const LOGIN_PAGE = '/contents/MDC/COMS/client/MDCCOMS001.cmd';
const LOGIN_JSP = '/contents/MDC/COMS/client/view/login.jsp';
const LOGIN_POST = '/contents/MDC/COMS/client/MDCCOMS001D1.cmd';
const DATA = '/comm/bldAttendant/getJsonData.cmd';

interface Market {
  /** The `_error_code` of each successive sign-in POST. */
  codes: string[];
  /** Data calls (1-based) answered LOGOUT whatever the cookie. */
  logoutOn?: number[];
}

/** A marketplace: sessions are cookies it issued at a CD001 sign-in; anything else gets 400 LOGOUT. */
function marketplace(m: Market): (req: Recorded) => Reply {
  let posts = 0;
  let dataCalls = 0;
  let sessions = 0;
  const valid = new Set<string>();
  return (req) => {
    const cookie = String(req.headers['cookie'] ?? '');
    const path = req.url.pathname;
    if (path === LOGIN_PAGE) return { headers: { 'set-cookie': 'JSESSIONID=anon; Path=/; HttpOnly' }, body: '<html>login</html>' };
    if (path === LOGIN_JSP) return { headers: { 'set-cookie': '__smVisitorID=v1; Path=/' }, body: '<html>form</html>' };
    if (path === LOGIN_POST) {
      const form = new URLSearchParams(req.body);
      assert.equal(form.get('mbrId'), ID);
      assert.equal(form.get('pw'), PASSWORD);
      assert.match(cookie, /JSESSIONID=anon/, 'the sign-in carries the cookies of the two GETs');
      const code = m.codes[posts++] ?? 'CD999';
      if (code !== 'CD001') return { body: JSON.stringify({ _error_code: code, _error_message: `refused for ${ID}` }) };
      sessions += 1;
      valid.add(`auth${sessions}`);
      return { headers: { 'set-cookie': `JSESSIONID=auth${sessions}; Path=/; HttpOnly` }, body: JSON.stringify({ _error_code: 'CD001', MBR_NO: '1' }) };
    }
    if (path === DATA) {
      dataCalls += 1;
      const session = /JSESSIONID=(auth\d+)/.exec(cookie)?.[1];
      if (m.logoutOn?.includes(dataCalls) || session === undefined || !valid.has(session)) {
        if (session) valid.delete(session); // the server ended it
        return { status: 400, body: 'LOGOUT' };
      }
      const p = new URLSearchParams(req.body);
      return { body: fixture(`krx/${p.get('mktId')}_${p.get('invstTpCd')}_${p.get('strtDd')}.json`) };
    }
    return { status: 404, body: 'no such page' };
  };
}

const source = (base: string): KrxSource => new KrxSource({ baseUrl: base, credentials: { id: ID, password: PASSWORD }, requestsPerSecond: 0 });
// Cursor 2024-11-19, asOf 2024-11-21: one day, 2024-11-20, four data POSTs (STK/KSQ x 9000/7050).
const ctx = (progress?: ProgressPatch[]): ReturnType<typeof context> =>
  context({ asOf: '2024-11-21', cursor: '2024-11-19', ...(progress ? { progress: (p: ProgressPatch) => void progress.push(p) } : {}) });
const paths = (requests: Recorded[]): string[] => requests.map((r) => `${r.method} ${r.url.pathname}`);
const noSecret = (text: string): void => {
  assert.ok(!text.includes(PASSWORD) && !text.includes(encodeURIComponent(PASSWORD)), `password in: ${text}`);
};

describe('KRX member sign-in', () => {
  it('reads name=value pairs of Set-Cookie headers', () => {
    const h = new Headers();
    h.append('set-cookie', 'JSESSIONID=abc.def; Path=/; HttpOnly');
    h.append('set-cookie', 'lang=ko_KR; Max-Age=3600');
    assert.deepEqual(setCookies(h), [['JSESSIONID', 'abc.def'], ['lang', 'ko_KR']]);
  });

  it('CD001: two GETs, one sign-in POST, then data with the session cookie; progress by day', async () => {
    const server = await loopback(marketplace({ codes: ['CD001'] }));
    try {
      const progress: ProgressPatch[] = [];
      const run = ctx(progress);
      const krx = source(server.base);
      const result = await krx.ingest(run);
      assert.deepEqual(paths(server.requests), [`GET ${LOGIN_PAGE}`, `GET ${LOGIN_JSP}`, `POST ${LOGIN_POST}`, ...Array<string>(4).fill(`POST ${DATA}`)]);
      assert.match(String(server.requests[3]?.headers['cookie']), /JSESSIONID=auth1/);
      assert.equal(result.data.flows?.length, 3);
      assert.equal(krx.signIns, 1);
      // 3 sign-in requests + 4 data calls, all counted by the meter.
      assert.deepEqual(result.calls?.calls, 7);
      // start (1 day of 4 calls at 0 ms spacing: ETA 0), one step, done.
      assert.deepEqual(progress.map((p) => [p.phase, p.done, p.total]), [['calling', 0, 1], [undefined, 1, undefined], ['done', 1, 1]]);
      assert.equal(progress[0]?.unit, 'days');
      for (const line of run.log.lines) noSecret(line);
    } finally {
      await server.close();
    }
  });

  it('CD011 (another session open): the same POST again with skipDup=Y', async () => {
    const server = await loopback(marketplace({ codes: ['CD011', 'CD001'] }));
    try {
      const result = await source(server.base).ingest(ctx());
      const posts = server.requests.filter((r) => r.url.pathname === LOGIN_POST).map((r) => new URLSearchParams(r.body).get('skipDup'));
      assert.deepEqual(posts, [null, 'Y']);
      assert.equal(result.data.flows?.length, 3);
    } finally {
      await server.close();
    }
  });

  it('CD010 (password change demanded): a clear error, no data call, no password in it', async () => {
    const server = await loopback(marketplace({ codes: ['CD010'] }));
    try {
      const run = ctx();
      await assert.rejects(source(server.base).ingest(run), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.match(err.message, /CD010.*password change/);
        noSecret(err.message);
        noSecret(err.url);
        return true;
      });
      assert.ok(!server.requests.some((r) => r.url.pathname === DATA));
      for (const line of run.log.lines) noSecret(line);
    } finally {
      await server.close();
    }
  });

  it('a refused sign-in (any other code) says to check the credentials', async () => {
    const server = await loopback(marketplace({ codes: ['CD002'] }));
    try {
      await assert.rejects(source(server.base).ingest(ctx()), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.match(err.message, /sign-in refused \(CD002\): check KRX_ID and KRX_PASSWORD/);
        noSecret(err.message);
        return true;
      });
    } finally {
      await server.close();
    }
  });

  it('LOGOUT mid-run (the session expired): signs in again once, retries that call, finishes', async () => {
    // The second data call is answered LOGOUT and its session ended.
    const server = await loopback(marketplace({ codes: ['CD001', 'CD001'], logoutOn: [2] }));
    try {
      const krx = source(server.base);
      const result = await krx.ingest(ctx());
      assert.equal(krx.signIns, 2);
      assert.deepEqual(paths(server.requests), [
        `GET ${LOGIN_PAGE}`, `GET ${LOGIN_JSP}`, `POST ${LOGIN_POST}`,
        `POST ${DATA}`, `POST ${DATA}`, // the second: LOGOUT
        `GET ${LOGIN_PAGE}`, `GET ${LOGIN_JSP}`, `POST ${LOGIN_POST}`,
        `POST ${DATA}`, `POST ${DATA}`, `POST ${DATA}`, // the retried call, then the last two
      ]);
      assert.match(String(server.requests[8]?.headers['cookie']), /JSESSIONID=auth2/);
      // The retried call asked for the same screen as the one answered LOGOUT.
      assert.equal(server.requests[8]?.body, server.requests[4]?.body);
      assert.equal(result.data.flows?.length, 3);
    } finally {
      await server.close();
    }
  });

  it('LOGOUT again right after a fresh sign-in: the run fails and says so', async () => {
    const server = await loopback(marketplace({ codes: ['CD001', 'CD001'], logoutOn: [1, 2] }));
    try {
      const krx = source(server.base);
      const run = ctx();
      await assert.rejects(krx.ingest(run), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.match(err.message, /LOGOUT again right after a fresh sign-in/);
        noSecret(err.message);
        return true;
      });
      assert.equal(krx.signIns, 2);
      assert.equal(server.requests.filter((r) => r.url.pathname === DATA).length, 2);
      for (const line of run.log.lines) noSecret(line);
    } finally {
      await server.close();
    }
  });

  it('without credentials a LOGOUT names the variables to set', async () => {
    const server = await loopback(marketplace({ codes: [] }));
    try {
      await assert.rejects(new KrxSource({ baseUrl: server.base, requestsPerSecond: 0 }).ingest(ctx()), /LOGOUT \(set KRX_ID and KRX_PASSWORD, or a signed-in KRX_COOKIE\)/);
    } finally {
      await server.close();
    }
  });

  it('fromEnv: KRX_ID with KRX_PASSWORD, KRX_COOKIE or KRX_ENABLED enable it with KRX_MARKETPLACE_ACCEPT_TERMS=yes; an id alone, or no acknowledgement, does not', () => {
    const yes = { KRX_MARKETPLACE_ACCEPT_TERMS: 'yes' };
    assert.ok(KrxSource.fromEnv({ KRX_ID: ID, KRX_PASSWORD: PASSWORD, ...yes }));
    assert.ok(KrxSource.fromEnv({ KRX_COOKIE: 'JSESSIONID=abc', ...yes }));
    assert.ok(KrxSource.fromEnv({ KRX_ENABLED: '1', ...yes }));
    assert.equal(KrxSource.fromEnv({ KRX_ID: ID, ...yes }), null);
    assert.equal(KrxSource.fromEnv({ KRX_ID: ID, KRX_PASSWORD: PASSWORD }), null);
    assert.equal(KrxSource.fromEnv({ KRX_COOKIE: 'JSESSIONID=abc', KRX_MARKETPLACE_ACCEPT_TERMS: '1' }), null);
  });
});
