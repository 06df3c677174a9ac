// The KRX Data Marketplace member session. Since 2025-12-27 data.krx.co.kr answers every data
// request without a signed-in member session with HTTP 400 and the body `LOGOUT` (pykrx issues
// #244, #248, #278). The sign-in is the site's own form flow (FORMATS.md section 4, as
// FinanceData/marcap krx_marcap.py and pykrx's login helpers do it): GET MDCCOMS001.cmd and
// login.jsp?site=mdc for the session cookies, then POST MDCCOMS001D1.cmd with mbrId and pw.
// The answer's `_error_code`: CD001 signed in; CD011 another session of the member is open ->
// the same POST with skipDup=Y ends it; CD010 the site demands a password change (only a person
// can do that on the site). The session cookie is kept for the process; a data call answered
// `LOGOUT` signs in again once and is retried once.
//
// The member id and password are never logged: the HttpClient of a run carries them as secrets,
// so no message or log line can hold them, and no message here names them.

import type { HttpClient, HttpResponse } from '../http.js';

export interface KrxCredentials {
  id: string;
  password: string;
}

const LOGIN_PAGE = '/contents/MDC/COMS/client/MDCCOMS001.cmd';
const LOGIN_JSP = '/contents/MDC/COMS/client/view/login.jsp?site=mdc';
const LOGIN_POST = '/contents/MDC/COMS/client/MDCCOMS001D1.cmd';

export const LOGIN_CODE = { OK: 'CD001', PASSWORD_CHANGE: 'CD010', DUPLICATE: 'CD011' } as const;

const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';

/** `name=value` pairs of a response's Set-Cookie headers (attributes after the first `;` dropped). */
export function setCookies(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  for (const line of headers.getSetCookie()) {
    const pair = line.split(';', 1)[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    out.push([pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()]);
  }
  return out;
}

export class KrxSession {
  private readonly jar = new Map<string, string>();
  private signedIn = false;
  /** Sign-ins made by this session (first and renewals), for the log and tests. */
  signIns = 0;

  constructor(
    private readonly o: {
      baseUrl: string;
      credentials?: KrxCredentials;
      /** A cookie pasted by hand (KRX_COOKIE): sent with every request, under the session's own. */
      cookie?: string;
    },
  ) {}

  get canSignIn(): boolean {
    return this.o.credentials !== undefined;
  }

  /** The Cookie header: the pasted cookie, then the session's cookies (which win on a name both have). */
  cookieHeader(): string | undefined {
    const parts: string[] = [];
    if (this.o.cookie) parts.push(this.o.cookie);
    for (const [name, value] of this.jar) parts.push(`${name}=${value}`);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }

  private async send(http: HttpClient, path: string, init: { method: 'GET' | 'POST'; body?: string; referer?: string; acceptStatus?: readonly number[] }): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader();
    if (cookie) headers['cookie'] = cookie;
    if (init.referer) headers['referer'] = init.referer;
    if (init.body !== undefined) headers['content-type'] = FORM;
    const res = await http.request(`${this.o.baseUrl}${path}`, {
      method: init.method,
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.acceptStatus ? { acceptStatus: init.acceptStatus } : {}),
    });
    for (const [name, value] of setCookies(res.headers)) this.jar.set(name, value);
    return res;
  }

  /** Signs in with the configured credentials; throws an `upstream` error that says what to do when KRX refuses. */
  async signIn(http: HttpClient): Promise<void> {
    const creds = this.o.credentials;
    const where = `${this.o.baseUrl}${LOGIN_POST}`;
    if (!creds) throw http.upstreamError('sign-in needs KRX_ID and KRX_PASSWORD', where);
    this.jar.clear();
    this.signedIn = false;
    this.signIns += 1;
    const referer = `${this.o.baseUrl}${LOGIN_PAGE}`;
    await this.send(http, LOGIN_PAGE, { method: 'GET' });
    await this.send(http, LOGIN_JSP, { method: 'GET', referer });
    const form = { mbrNm: '', telNo: '', di: '', certType: '', mbrId: creds.id, pw: creds.password };
    let code = await this.post(http, new URLSearchParams(form).toString(), referer, where);
    if (code === LOGIN_CODE.DUPLICATE) {
      // Another session of this member is open (another process, a browser): end it.
      code = await this.post(http, new URLSearchParams({ ...form, skipDup: 'Y' }).toString(), referer, where);
    }
    if (code === LOGIN_CODE.PASSWORD_CHANGE) {
      throw http.upstreamError('sign-in refused (CD010): KRX asks for a password change; change it at data.krx.co.kr, then set the new KRX_PASSWORD', where);
    }
    if (code !== LOGIN_CODE.OK) throw http.upstreamError(`sign-in refused (${code || 'no _error_code'}): check KRX_ID and KRX_PASSWORD`, where);
    this.signedIn = true;
  }

  private async post(http: HttpClient, body: string, referer: string, where: string): Promise<string> {
    const res = await this.send(http, LOGIN_POST, { method: 'POST', body, referer });
    const text = new TextDecoder().decode(res.body);
    const answer = http.parseJson(text, where);
    const code = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)['_error_code'] : undefined;
    return typeof code === 'string' ? code.trim() : '';
  }

  /**
   * POSTs a form to a data screen and returns the body. Signs in first when credentials are set
   * and no session is open; an answer `LOGOUT` (the session expired or was ended) signs in again
   * once and retries once; `LOGOUT` after a fresh sign-in is an error that says so.
   */
  async postData(http: HttpClient, path: string, form: string, referer: string): Promise<string> {
    if (this.canSignIn && !this.signedIn) await this.signIn(http);
    const once = async (): Promise<string> => {
      const res = await this.send(http, path, { method: 'POST', body: form, referer, acceptStatus: [400] });
      const text = new TextDecoder().decode(res.body);
      if (res.status === 400 && text.trim() !== 'LOGOUT') {
        throw http.upstreamError(`HTTP 400: ${text.slice(0, 120).replace(/\s+/g, ' ')}`, `${this.o.baseUrl}${path}`);
      }
      return text;
    };
    let text = await once();
    if (text.trim() !== 'LOGOUT') return text;
    const url = `${this.o.baseUrl}${path}`;
    if (!this.canSignIn) {
      throw http.upstreamError('session required: the marketplace answered LOGOUT (set KRX_ID and KRX_PASSWORD, or a signed-in KRX_COOKIE)', url);
    }
    this.signedIn = false;
    await this.signIn(http);
    text = await once();
    if (text.trim() === 'LOGOUT') {
      this.signedIn = false;
      throw http.upstreamError('the marketplace answered LOGOUT again right after a fresh sign-in: the member session is not accepted for this screen', url);
    }
    return text;
  }
}
