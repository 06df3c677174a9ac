// The replica: one loopback HTTP server answering every upstream the service calls, each under
// its own path prefix (the adapters' base URLs point there), judging each source's documented
// limits on the rehearsal's clock and counting calls, refusals and bytes per source.

import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { customs, DartApi, ecbRatesZip, ecosRates, fscPrices, krxData, polygonGrouped, SecApi, type Answer, type ShareFrame } from './api.js';
import { KisApi, kisRateRefusal } from './kis.js';
import { DOCUMENTED_LIMITS, LimitJudge, type ReplicaSource, type SourceLimits } from './limits.js';
import { isKrxOpenApiService, krxOpenApi } from './krx-openapi.js';
import { buildUniverse, type Universe } from './universe.js';
import type { BulkFiles } from './bulk.js';

/** Path prefix of each upstream on the replica, and the environment variable that points an adapter there. */
export const PREFIX = {
  dart: '/dart',
  secWww: '/sec-www',
  secData: '/sec-data',
  fsc: '/fsc/1160100/service/GetStockSecuritiesInfoService',
  polygon: '/polygon',
  ecos: '/ecos',
  ecb: '/ecb',
  customs: '/customs/1220000',
  krx: '/krx',
  krxOpenApi: '/krx-openapi/svc/apis',
  kis: '/kis',
} as const;

/** The service's environment for the replica at `base` (every adapter's base URL variable). */
export function baseUrlEnv(base: string): Record<string, string> {
  return {
    DART_BASE_URL: `${base}${PREFIX.dart}`,
    SEC_BASE_URL: `${base}${PREFIX.secWww}`,
    SEC_DATA_BASE_URL: `${base}${PREFIX.secData}`,
    FSC_BASE_URL: `${base}${PREFIX.fsc}`,
    US_PRICES_BASE_URL: `${base}${PREFIX.polygon}`,
    ECOS_BASE_URL: `${base}${PREFIX.ecos}`,
    ECB_BASE_URL: `${base}${PREFIX.ecb}`,
    CUSTOMS_BASE_URL: `${base}${PREFIX.customs}`,
    KRX_BASE_URL: `${base}${PREFIX.krx}`,
    KRX_OPENAPI_BASE_URL: `${base}${PREFIX.krxOpenApi}`,
    KIS_BASE_URL: `${base}${PREFIX.kis}`,
  };
}

/**
 * The rehearsal's clock time at which the caller sent a request (set by the bench's metering
 * fetch): rates and days are judged on it, since this in-process replica may take a request up
 * later than it was sent. Requests without it are judged on arrival.
 */
export const SENT_AT_HEADER = 'x-replica-sent-at';

/** The member account the replica's KRX accepts (FORMATS.md section 4 sign-in flow). */
export const KRX_MEMBER = { id: 'replica-member', password: 'replica-password' } as const;
/** A KRX session ends after this long without a request (the marketplace's idle logout). */
export const KRX_SESSION_IDLE_MS = 30 * 60_000;

export interface SourceStats {
  calls: number;
  /** Answered past a per-window rate (403/429), and for SEC a request without a declared User-Agent (403). */
  refusedRate: number;
  /** Answered past the daily allowance (020, gateway code 22). */
  refusedDay: number;
  /** KRX requests without a signed-in session (400 LOGOUT). */
  loggedOut: number;
  bytes: number;
  /** Requests the replica had no answer for (404 and listed). */
  unanswered: number;
  /** Per kind of call (path pattern), calls. */
  byKind: Record<string, number>;
}

export interface ReplicaOptions {
  scale: number;
  /** The clock on which limits and "today" are judged (the rehearsal's warp clock). */
  now: () => number;
  /** Overrides of the documented limits (tests only: a smaller allowance to reach quickly). */
  limits?: Partial<Record<ReplicaSource, SourceLimits>>;
  /** Big archives generated into a cache (bench/replica/bulk.ts); absent: bulk paths answer 404. */
  bulk?: BulkFiles;
}

export interface Replica {
  base: string;
  universe: Universe;
  stats: Record<ReplicaSource, SourceStats>;
  unanswered: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

const emptyStats = (): SourceStats => ({ calls: 0, refusedRate: 0, refusedDay: 0, loggedOut: 0, bytes: 0, unanswered: 0, byKind: {} });

/** The Asia/Seoul calendar day of an instant (the day the Korean upstreams publish on). */
export const seoulDate = (ms: number): string => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);

interface Routed {
  source: ReplicaSource;
  kind: string;
  answer: () => Answer | { file: string; type: string } | null;
}

export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const universe = buildUniverse(options.scale);
  const today = (): string => seoulDate(options.now());
  const dart = new DartApi(universe, today);
  const sec = new SecApi(universe, today);
  const kisApi = new KisApi(universe, options.now, today);
  const judge = new LimitJudge(options.now, { ...DOCUMENTED_LIMITS, ...options.limits });
  const stats = Object.fromEntries(Object.keys(DOCUMENTED_LIMITS).map((k) => [k, emptyStats()])) as Record<ReplicaSource, SourceStats>;
  const unanswered: string[] = [];
  const krxSessions = new Map<string, { signedIn: boolean; lastSeen: number }>();

  const route = (req: IncomingMessage, url: URL, body: string): Routed | null => {
    const p = url.pathname;
    const q = url.searchParams;
    let m: RegExpExecArray | null;
    if (p.startsWith(`${PREFIX.dart}/`)) {
      const sub = p.slice(PREFIX.dart.length);
      if (sub === '/disclosureinfo/fnltt/dwld/list.do') return { source: 'opendart-bulk', kind: 'bulk list page', answer: () => options.bulk?.dartListPage() ?? null };
      if (sub === '/cmm/downloadFnlttZip.do') return { source: 'opendart-bulk', kind: 'bulk quarterly ZIP', answer: () => options.bulk?.dartZip(q.get('fl_nm') ?? '') ?? null };
      const api: Record<string, () => Answer> = {
        '/api/corpCode.xml': () => dart.corpCode(),
        '/api/list.json': () => dart.list(q),
        '/api/company.json': () => dart.company(q),
        '/api/fnlttSinglAcntAll.json': () => dart.statementsOf(q),
        '/api/alotMatter.json': () => dart.alotMatter(q),
      };
      const handler = api[sub];
      return handler ? { source: 'opendart', kind: sub.slice(5), answer: handler } : null;
    }
    if (p.startsWith(`${PREFIX.secWww}/`) || p.startsWith(`${PREFIX.secData}/`)) {
      const sub = p.slice(p.startsWith(PREFIX.secWww) ? PREFIX.secWww.length : PREFIX.secData.length);
      if (sub === '/Archives/edgar/daily-index/xbrl/companyfacts.zip') return { source: 'sec-bulk', kind: 'companyfacts.zip', answer: () => options.bulk?.secArchive('companyfacts') ?? null };
      if (sub === '/Archives/edgar/daily-index/bulkdata/submissions.zip') return { source: 'sec-bulk', kind: 'submissions.zip', answer: () => options.bulk?.secArchive('submissions') ?? null };
      if (sub === '/files/company_tickers.json') return { source: 'sec', kind: 'company_tickers.json', answer: () => sec.tickers() };
      if ((m = /^\/api\/xbrl\/companyfacts\/CIK(\d{10})\.json$/.exec(sub))) {
        const cik = Number(m[1]);
        return { source: 'sec', kind: 'companyfacts', answer: () => sec.companyFacts(cik) };
      }
      if ((m = /^\/submissions\/CIK(\d{10})\.json$/.exec(sub))) {
        const cik = Number(m[1]);
        return { source: 'sec', kind: 'submissions', answer: () => sec.submissionsAnswer(cik) };
      }
      if ((m = /^\/api\/xbrl\/frames\/(dei\/EntityCommonStockSharesOutstanding|us-gaap\/CommonStockSharesOutstanding|us-gaap\/WeightedAverageNumberOfSharesOutstandingBasic)\/shares\/CY(\d{4})Q([1-4])(I?)\.json$/.exec(sub))) {
        const [concept, y, qq] = [m[1] as ShareFrame, Number(m[2]), Number(m[3])];
        // The weighted average is a duration frame (no `I`), the counts are instants.
        if ((m[4] === 'I') === (concept === 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic')) return null;
        return { source: 'sec', kind: 'frames', answer: () => sec.sharesFrame(concept, y, qq) };
      }
      if ((m = /^\/Archives\/edgar\/daily-index\/\d{4}\/QTR[1-4]\/form\.(\d{4})(\d{2})(\d{2})\.idx$/.exec(sub))) {
        const date = `${m[1]}-${m[2]}-${m[3]}`;
        return { source: 'sec', kind: 'daily form index', answer: () => sec.dailyIndex(date) };
      }
      return null;
    }
    if (p === `${PREFIX.fsc}/getStockPriceInfo`) return { source: 'fsc', kind: 'getStockPriceInfo', answer: () => fscPrices(universe, q, today()) };
    if ((m = new RegExp(`^${PREFIX.polygon}/v2/aggs/grouped/locale/us/market/stocks/(\\d{4}-\\d{2}-\\d{2})$`).exec(p))) {
      const date = m[1] as string;
      return { source: 'polygon', kind: 'grouped daily', answer: () => polygonGrouped(universe, date, today()) };
    }
    if (p === `${PREFIX.ecb}/stats/eurofxref/eurofxref-hist.zip`) return { source: 'ecb', kind: 'eurofxref-hist.zip', answer: () => ecbRatesZip(today()) };
    if (p.startsWith(`${PREFIX.ecos}/api/StatisticSearch/`)) {
      const parts = p.slice(PREFIX.ecos.length).split('/');
      return { source: 'ecos', kind: 'StatisticSearch', answer: () => ecosRates(parts, today()) };
    }
    if (p === `${PREFIX.customs}/Newtrade/getNewtradeList` || p === `${PREFIX.customs}/Itemtrade/getItemtradeList`) {
      return { source: 'customs', kind: p.split('/').at(-1) as string, answer: () => customs(p, q, today()) };
    }
    if (p.startsWith(`${PREFIX.krxOpenApi}/`) && isKrxOpenApiService(p.slice(PREFIX.krxOpenApi.length))) {
      const sub = p.slice(PREFIX.krxOpenApi.length);
      const key = req.headers['auth_key'];
      return { source: 'krx-openapi', kind: sub.slice(5), answer: () => krxOpenApi(universe, sub, q.get('basDd') ?? '', typeof key === 'string' ? key : undefined, today()) };
    }
    if (p.startsWith(`${PREFIX.kis}/`)) return { source: 'kis', kind: p.slice(PREFIX.kis.length).split('/').at(-1) as string, answer: () => kisApi.answer(req, p.slice(PREFIX.kis.length), body, q) };
    if (p.startsWith(`${PREFIX.krx}/`)) return { source: 'krx', kind: p.slice(PREFIX.krx.length), answer: () => krx(req, p.slice(PREFIX.krx.length), body) };
    return null;
  };

  /** KRX: the member sign-in flow of FORMATS.md section 4, then data only with a signed-in session cookie. */
  let krxSetCookie: string | null = null;
  const krx = (req: IncomingMessage, sub: string, body: string): Answer => {
    const now = options.now();
    const sid = /JSESSIONID=([^;\s]+)/.exec(req.headers.cookie ?? '')?.[1];
    const session = sid ? krxSessions.get(sid) : undefined;
    const live = session && now - session.lastSeen <= KRX_SESSION_IDLE_MS ? session : undefined;
    if (session && !live && sid) krxSessions.delete(sid);
    if (live) live.lastSeen = now;
    if (sub === '/contents/MDC/COMS/client/MDCCOMS001.cmd' || sub === '/contents/MDC/COMS/client/view/login.jsp') {
      if (!live) {
        const id = randomBytes(12).toString('hex');
        krxSessions.set(id, { signedIn: false, lastSeen: now });
        krxSetCookie = `JSESSIONID=${id}; Path=/; HttpOnly`;
      }
      return { headers: { 'content-type': 'text/html; charset=UTF-8' }, body: '<html><body>KRX 정보데이터시스템 로그인 (replica)</body></html>' };
    }
    if (sub === '/contents/MDC/COMS/client/MDCCOMS001D1.cmd') {
      const form = new URLSearchParams(body);
      if (!live) return { status: 400, body: 'LOGOUT' };
      if (form.get('mbrId') !== KRX_MEMBER.id || form.get('pw') !== KRX_MEMBER.password) return jsonStatus({ _error_code: 'CD002', _error_message: '아이디 또는 비밀번호가 일치하지 않습니다.' }, 200);
      const other = [...krxSessions.entries()].some(([k, s]) => k !== sid && s.signedIn && now - s.lastSeen <= KRX_SESSION_IDLE_MS);
      if (other && form.get('skipDup') !== 'Y') return jsonStatus({ _error_code: 'CD011', _error_message: '이미 로그인된 세션이 있습니다.' }, 200);
      for (const [k, s] of krxSessions) if (k !== sid) s.signedIn = false;
      live.signedIn = true;
      return jsonStatus({ _error_code: 'CD001', _error_message: '정상' }, 200);
    }
    if (sub === '/comm/bldAttendant/getJsonData.cmd') {
      if (!live?.signedIn) return { status: 400, headers: { 'content-type': 'text/plain' }, body: 'LOGOUT' };
      return krxData(universe, new URLSearchParams(body), today());
    }
    return { status: 404, body: 'Not Found' };
  };

  const refusal = (source: ReplicaSource, verdict: 'rate' | 'day'): Answer => {
    if (verdict === 'rate') {
      if (source === 'polygon') return jsonStatus({ status: 'ERROR', request_id: 'replica', error: "You've exceeded the maximum requests per minute, please wait or upgrade your subscription to continue. https://polygon.io/pricing" }, 429);
      if (source === 'kis') return kisRateRefusal();
      if (source === 'sec' || source === 'sec-bulk') return { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body>Your Request Originates from an Undeclared Automated Tool</body></html>' };
      return { status: 429, body: 'Too Many Requests' };
    }
    if (source === 'opendart') return jsonStatus({ status: '020', message: '요청 제한을 초과하였습니다.' }, 200);
    // Not documented for the KRX Open API (bench/replica/limits.ts): a plain 429.
    if (source === 'krx-openapi') return { status: 429, body: 'Too Many Requests' };
    // data.go.kr's gateway: HTTP 200 with an XML envelope even for a JSON request.
    return {
      headers: { 'content-type': 'text/xml; charset=UTF-8' },
      body: '<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</returnAuthMsg><returnReasonCode>22</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>',
    };
  };

  const send = (res: ServerResponse, s: SourceStats | null, a: Answer | { file: string; type: string }): void => {
    if ('file' in a) {
      const size = statSync(a.file).size;
      if (s) s.bytes += size;
      res.writeHead(200, { 'content-type': a.type, 'content-length': String(size) });
      createReadStream(a.file).pipe(res);
      return;
    }
    const body = typeof a.body === 'string' ? Buffer.from(a.body, 'utf8') : a.body;
    if (s) s.bytes += body.byteLength;
    const headers: Record<string, string> = { ...a.headers, 'content-length': String(body.byteLength) };
    if (krxSetCookie) {
      headers['set-cookie'] = krxSetCookie;
      krxSetCookie = null;
    }
    res.writeHead(a.status ?? 200, headers);
    res.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const routed = route(req, url, Buffer.concat(chunks).toString('utf8'));
      const safe = url.pathname + url.search.replace(/(crtfc_key|serviceKey|apiKey)=[^&]*/g, '$1=***');
      if (routed === null) {
        unanswered.push(safe);
        send(res, null, { status: 404, body: 'no replica answer' });
        return;
      }
      const s = stats[routed.source];
      s.calls++;
      s.byKind[routed.kind] = (s.byKind[routed.kind] ?? 0) + 1;
      const sentAt = Number(req.headers[SENT_AT_HEADER]);
      // SEC's fair-access policy: a User-Agent naming the caller and a contact address, else 403.
      if ((routed.source === 'sec' || routed.source === 'sec-bulk') && !/@/.test(req.headers['user-agent'] ?? '')) {
        s.refusedRate++;
        send(res, s, { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><head><title>SEC.gov | Your Request Originates from an Undeclared Automated Tool</title></head><body>Please declare your traffic by updating your user agent to include company specific information.</body></html>' });
        return;
      }
      const verdict = judge.judge(routed.source, Number.isFinite(sentAt) && sentAt > 0 ? sentAt : undefined);
      if (verdict !== 'ok') {
        if (verdict === 'rate') s.refusedRate++;
        else s.refusedDay++;
        send(res, s, refusal(routed.source, verdict));
        return;
      }
      let answer: Answer | { file: string; type: string } | null;
      try {
        answer = routed.answer();
      } catch (err) {
        send(res, s, { status: 500, body: `replica error: ${err instanceof Error ? err.message : String(err)}` });
        return;
      }
      if (answer === null) {
        s.unanswered++;
        unanswered.push(safe);
        send(res, s, { status: 404, body: 'Not Found' });
        return;
      }
      if (routed.source === 'krx' && 'status' in answer && answer.status === 400) s.loggedOut++;
      send(res, s, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    universe,
    stats,
    unanswered,
    env: baseUrlEnv(base),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function jsonStatus(body: unknown, status: number): Answer {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
}
