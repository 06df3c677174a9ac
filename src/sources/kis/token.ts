// The KIS access token: issued by POST /oauth2/tokenP {grant_type: client_credentials, appkey,
// appsecret}, valid for a day (an individual's token; KIS Developers, 접근토큰발급(P)), and issued
// at most once a minute (EGW00133 otherwise; koreainvestment/open-trading-api README "토큰
// 재발급 - 1분당 1회"). Each issuance also sends the account holder a notification, so a token is
// kept for its life: in memory, and in DATA_DIR/kis/token.json (directory 0700, file 0600) so a
// restart reuses it. It is renewed an hour before its stated expiry, and when the API answers
// EGW00123 (expired) before that. Issuances are spaced a minute apart on the pacing clock, the
// last one's time kept in the same file across restarts.
//
// The app secret and the token are secrets: the run's HttpClient carries them (and each new
// token as it is issued) in its redaction list, no message here names them, and the file holds
// the token with a hash of the app key (to tell which key it belongs to), never the key or
// the secret.

import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pacingNow, sleep, type HttpClient } from '../http.js';
import { isRecord } from '../shared/parse.js';
import { KIS_CODE, kisFailure, parseToken } from './parse.js';

export const TOKEN_PATH = '/oauth2/tokenP';

/** What DATA_DIR/kis/token.json holds. */
interface StoredToken {
  /** sha256 of the app key, first 16 hex digits: a token of another key is not reused. */
  keyId: string;
  accessToken: string | null;
  expiresAt: number;
  /** When the last issuance was asked for (ms since the epoch, pacing clock). */
  issuedAt: number;
}

export interface KisTokenOptions {
  baseUrl: string;
  appKey: string;
  appSecret: string;
  /** Where the token is kept across restarts (DATA_DIR/kis/token.json); null: memory only. */
  file: string | null;
  /** Renew this long before the stated expiry (default an hour). */
  renewBeforeMs?: number;
  /** At most one issuance per this long (default a minute, the documented limit). */
  minIssueIntervalMs?: number;
}

export class KisTokens {
  private stored: StoredToken | null | undefined;
  private issuing: Promise<string> | null = null;
  /** Issuances asked of the API by this object (tests, the run's log). */
  issuances = 0;
  private readonly keyId: string;

  constructor(private readonly o: KisTokenOptions) {
    this.keyId = createHash('sha256').update(o.appKey).digest('hex').slice(0, 16);
  }

  private get renewBeforeMs(): number {
    return this.o.renewBeforeMs ?? 3_600_000;
  }

  private get minIssueIntervalMs(): number {
    return this.o.minIssueIntervalMs ?? 60_000;
  }

  private load(): StoredToken | null {
    if (this.stored !== undefined) return this.stored;
    this.stored = null;
    if (this.o.file === null) return null;
    try {
      const body: unknown = JSON.parse(readFileSync(this.o.file, 'utf8'));
      if (isRecord(body) && body['keyId'] === this.keyId && typeof body['expiresAt'] === 'number' && typeof body['issuedAt'] === 'number') {
        const token = body['accessToken'];
        this.stored = { keyId: this.keyId, accessToken: typeof token === 'string' && token !== '' ? token : null, expiresAt: body['expiresAt'], issuedAt: body['issuedAt'] };
      }
    } catch {
      // No file yet, or not ours to read: a new token is issued.
    }
    return this.stored;
  }

  private save(next: StoredToken): void {
    this.stored = next;
    const file = this.o.file;
    if (file === null) return;
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const partial = `${file}.partial`;
    writeFileSync(partial, JSON.stringify(next), { mode: 0o600 });
    chmodSync(partial, 0o600);
    renameSync(partial, file);
  }

  /** The current token when it is still good for `renewBeforeMs`; null otherwise. */
  usable(now: number = pacingNow()): string | null {
    const s = this.load();
    return s?.accessToken && s.expiresAt - this.renewBeforeMs > now ? s.accessToken : null;
  }

  /** A token good for at least `renewBeforeMs`: the kept one, else a new one. */
  async token(http: HttpClient): Promise<string> {
    const kept = this.usable();
    if (kept !== null) return kept;
    this.issuing ??= this.issue(http).finally(() => {
      this.issuing = null;
    });
    return this.issuing;
  }

  /** The API said `token` expired (EGW00123): the next `token()` issues a new one. */
  invalidate(token: string): void {
    const s = this.load();
    if (s && s.accessToken === token) this.save({ ...s, accessToken: null, expiresAt: 0 });
  }

  private async issue(http: HttpClient): Promise<string> {
    const url = `${this.o.baseUrl}${TOKEN_PATH}`;
    for (let attempt = 0; ; attempt++) {
      const last = this.load()?.issuedAt ?? Number.NEGATIVE_INFINITY;
      const wait = last + this.minIssueIntervalMs - pacingNow();
      if (wait > 0) await sleep(wait);
      const issuedAt = pacingNow();
      // Counted before the answer: KIS counts the request, whatever it answers.
      this.save({ keyId: this.keyId, accessToken: null, expiresAt: 0, ...this.stored, issuedAt });
      this.issuances += 1;
      const res = await http.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ grant_type: 'client_credentials', appkey: this.o.appKey, appsecret: this.o.appSecret }),
        acceptStatus: [400, 401, 403],
      });
      const text = new TextDecoder().decode(res.body);
      const body = http.parseJson(text, url);
      const failure = kisFailure(body);
      if (failure?.code === KIS_CODE.TOKEN_TOO_SOON && attempt === 0) continue; // another process issued one: wait the minute once
      if (failure) throw http.upstreamError(`token issuance refused (HTTP ${res.status}, ${failure.code}: ${failure.message})`, url);
      if (res.status !== 200) throw http.upstreamError(`token issuance refused (HTTP ${res.status})`, url);
      const token = parseToken(body, issuedAt);
      if (token === null) throw http.parseError('token answer without access_token and a usable expiry', url);
      this.save({ keyId: this.keyId, accessToken: token.accessToken, expiresAt: token.expiresAt, issuedAt });
      return token.accessToken;
    }
  }
}
