// The documented limits of each upstream, judged by the replica on the rehearsal's clock.
// Figures and the answers past them (docs/sources.md; each provider's own terms):
// - OpenDART: 20,000 calls a day per key; past it, HTTP 200 with status "020".
// - SEC EDGAR (www and data.sec.gov): at most 10 requests a second; past it, HTTP 403 (EDGAR's
//   "Request Rate Threshold Exceeded" page; some front ends answer 429). A request without a
//   User-Agent holding a contact address is refused with 403 too (bench/replica/server.ts).
// - Polygon free plan: 5 calls a minute; past it, HTTP 429 with status "ERROR".
// - data.go.kr (FSC stock prices, Korea Customs trade): a daily traffic allowance per service
//   (10,000 a day for a development account); past it, HTTP 200 with the gateway's XML
//   envelope, returnReasonCode 22 LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR.
// - ECOS: no published per-day figure for a personal key; the replica counts without a cap.
// - KRX data marketplace: no published rate; a member session is required (HTTP 400 LOGOUT).
// - KRX Open API: 10,000 requests a key a day (its terms, 제8조 ④); the answer past it is not
//   documented (the terms say the service may be stopped): the replica answers HTTP 429.
// - KIS open API (Korea Investment & Securities): 20 REST calls a second for a real account (the
//   official sample spaces calls 0.05 s apart); past it, HTTP 500 with msg_cd EGW00201. Token
//   issuance at most once a minute (bench/replica/kis.ts, HTTP 403 EGW00133).

/** The limits of one source: any of a per-window rate and a daily allowance. */
export interface SourceLimits {
  /** At most `calls` within any `windowMs` on the rehearsal's clock. */
  rate?: { calls: number; windowMs: number };
  /** Calls per calendar day (Asia/Seoul for the Korean sources, America/New_York for SEC/Polygon: both UTC offsets fixed here). */
  perDay?: number;
  /** Hours east of UTC of the day the allowance resets on. */
  dayOffsetHours?: number;
}

export type ReplicaSource = 'opendart' | 'opendart-bulk' | 'sec' | 'sec-bulk' | 'fsc' | 'polygon' | 'ecos' | 'ecb' | 'customs' | 'krx' | 'krx-openapi' | 'kis';

export const DOCUMENTED_LIMITS: Readonly<Record<ReplicaSource, SourceLimits>> = {
  opendart: { perDay: 20_000, dayOffsetHours: 9 },
  // The bulk download pages have no published limit (no key; one file per request).
  'opendart-bulk': {},
  sec: { rate: { calls: 10, windowMs: 1_000 } },
  'sec-bulk': { rate: { calls: 10, windowMs: 1_000 } },
  fsc: { perDay: 10_000, dayOffsetHours: 9 },
  polygon: { rate: { calls: 5, windowMs: 60_000 } },
  ecos: {},
  // One static file, no key, no published limit.
  ecb: {},
  customs: { perDay: 10_000, dayOffsetHours: 9 },
  krx: {},
  'krx-openapi': { perDay: 10_000, dayOffsetHours: 9 },
  kis: { rate: { calls: 20, windowMs: 1_000 } },
};

export type Verdict = 'ok' | 'rate' | 'day';

/** Counts calls per source on a clock and says whether each one is within the limits. */
export class LimitJudge {
  private readonly recent = new Map<ReplicaSource, number[]>();
  private readonly daily = new Map<ReplicaSource, { day: number; calls: number }>();

  constructor(
    private readonly now: () => number,
    private readonly limits: Readonly<Record<ReplicaSource, SourceLimits>> = DOCUMENTED_LIMITS,
  ) {}

  /** Counts a call at `at` (default: now) and says whether it is within the limits. */
  judge(source: ReplicaSource, at?: number): Verdict {
    const limit = this.limits[source];
    const t = at ?? this.now();
    if (limit.perDay !== undefined) {
      const day = Math.floor((t + (limit.dayOffsetHours ?? 0) * 3_600_000) / 86_400_000);
      let d = this.daily.get(source);
      if (!d || d.day !== day) {
        d = { day, calls: 0 };
        this.daily.set(source, d);
      }
      if (d.calls >= limit.perDay) return 'day';
      d.calls++;
    }
    if (limit.rate) {
      let times = this.recent.get(source);
      if (!times) {
        times = [];
        this.recent.set(source, times);
      }
      // 2 % of the window is forgiven: a client that spaces its calls 1/rate apart at the
      // instant it schedules them sends them a millisecond either side of that.
      const window = limit.rate.windowMs * 0.98;
      while (times.length > 0 && (times[0] as number) <= t - window) times.shift();
      if (times.length >= limit.rate.calls) return 'rate';
      // Calls judged out of order (sent-at stamps) are kept sorted.
      let i = times.length;
      while (i > 0 && (times[i - 1] as number) > t) i--;
      times.splice(i, 0, t);
    }
    return 'ok';
  }

  /** Calls counted today (on the source's calendar) so far. */
  today(source: ReplicaSource): number {
    return this.daily.get(source)?.calls ?? 0;
  }
}
