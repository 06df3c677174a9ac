// HTTP routes of OAuth: the discovery documents (always), and with OAuth on the authorization
// server's endpoints: /oauth/authorize (the sign-in page and its form), /oauth/token and
// /oauth/register. Error bodies follow RFC 6749 section 5.2 ({error, error_description}).

import { randomBytes, timingSafeEqual } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TOOLS } from '../tools/registry.js';
import { ClientError, matchRedirectUri } from './clients.js';
import { AUTHORIZATION_SERVER_PATH, MCP_PATH, MCP_SCOPE, OAUTH_PATHS, PROTECTED_RESOURCE_PATH, authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import type { Grantor } from './model.js';
import { ERROR_PAGE_POLICY, errorPage, keyPage, reviewPage, signInPolicy, type PageClient } from './page.js';
import type { OAuthService } from './service.js';

export interface OAuthRouteDeps {
  /** The authorization server; null with OAuth off (only the protected resource metadata answers). */
  oauth: OAuthService | null;
  /** PUBLIC_URL's origin, when configured; otherwise the request's own origin is used in the metadata. */
  origin: string | null;
}

type Params = Record<string, string>;

const TOOL_NAMES = TOOLS.map((t) => t.name);

/** The authorization request's parameters carried through the sign-in form. */
const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource'] as const;

const CSRF_COOKIE = 'oauth_csrf';

/** application/x-www-form-urlencoded to an object; a repeated parameter is refused (RFC 6749 section 3.1). */
function formParams(text: string): Params | null {
  const out: Params = Object.create(null) as Params;
  for (const [k, v] of new URLSearchParams(text)) {
    if (k in out) return null;
    out[k] = v;
  }
  return out;
}

function queryParams(request: FastifyRequest): Params | null {
  const at = request.url.indexOf('?');
  return formParams(at < 0 ? '' : request.url.slice(at + 1));
}

function cors(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*').header('access-control-allow-methods', 'GET, POST, OPTIONS').header('access-control-allow-headers', 'content-type, authorization, mcp-protocol-version, mcp-method, mcp-name');
}

const oauthError = (reply: FastifyReply, status: number, error: string, description: string) =>
  cors(reply).code(status).header('cache-control', 'no-store').type('application/json').send(JSON.stringify({ error, error_description: description }));

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The library wraps any other error (a store that did not answer, a bug) as server_error with
 * the original's message, which may quote SQL or a value: the original is thrown instead, for
 * the server's error handler (503 for an outage, 500 otherwise, neither with the message).
 */
function rethrowServerError(err: OAuth2Server.OAuthError): void {
  const inner = (err as OAuth2Server.OAuthError & { inner?: unknown }).inner;
  if (err.name === 'server_error') throw inner instanceof Error ? inner : err;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function oauthRoutes(app: FastifyInstance, deps: OAuthRouteDeps): Promise<void> {
  const originOf = (request: FastifyRequest) => deps.origin ?? `${request.protocol}://${request.host}`;

  const resourceMetadata = async (request: FastifyRequest, reply: FastifyReply) =>
    cors(reply).header('cache-control', 'public, max-age=3600').type('application/json').send(JSON.stringify(protectedResourceMetadata(originOf(request), deps.oauth !== null)));
  app.get(PROTECTED_RESOURCE_PATH, resourceMetadata);
  app.get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, resourceMetadata);

  const oauth = deps.oauth;
  if (oauth === null) return;
  const origin = oauth.origin;
  const secureCookie = origin.startsWith('https:');
  const asMetadata = JSON.stringify(authorizationServerMetadata(origin));
  app.get(AUTHORIZATION_SERVER_PATH, async (_request, reply) => cors(reply).header('cache-control', 'public, max-age=3600').type('application/json').send(asMetadata));
  for (const path of [AUTHORIZATION_SERVER_PATH, PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, OAUTH_PATHS.token, OAUTH_PATHS.register]) {
    app.options(path, async (_request, reply) => cors(reply).code(204).send());
  }

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, formParams(String(body))));

  /** Why the page cannot go on: shown as an error page, never sent to a redirect URI. */
  interface Refusal {
    status: number;
    message: string;
    reason: string;
    retryAfter?: number;
  }

  /** The client and redirect URI of a request, or why not (an error page: never a redirect to an unchecked URI). */
  async function checkClient(p: Params, address: string): Promise<{ client: PageClient & { id: string }; redirectUri: string } | Refusal> {
    const clientId = p.client_id;
    if (clientId === undefined || clientId === '') return { status: 400, message: 'the request names no client (client_id)', reason: 'no_client_id' };
    let client;
    try {
      client = await oauth!.clients.resolve(clientId, address);
    } catch (err) {
      if (err instanceof ClientError) return { status: err.status, message: err.message, reason: err.reason, ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }) };
      throw err;
    }
    if (client === null) return { status: 400, message: 'the client is not known to this server; it must register first', reason: 'unknown_client' };
    const requested = p.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    const redirectUri = requested === undefined ? null : matchRedirectUri(client.redirectUris, requested);
    if (redirectUri === null) return { status: 400, message: 'the redirect URI is not one the client registered', reason: 'redirect_uri_mismatch' };
    const url = new URL(redirectUri);
    return { client: { id: client.clientId, name: client.name, redirectTarget: url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol }, redirectUri };
  }

  /** The error to send back to the client for a malformed request (RFC 6749 section 4.1.2.1), or null. */
  function requestError(p: Params): [string, string] | null {
    if (p.response_type !== 'code') return ['unsupported_response_type', 'only response_type=code is supported'];
    if (p.code_challenge === undefined || p.code_challenge === '' || p.code_challenge_method !== 'S256') return ['invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256'];
    if (p.resource !== undefined && p.resource !== oauth!.resource) return ['invalid_target', `the resource must be ${oauth!.resource}`];
    if (p.scope !== undefined && p.scope.split(' ').some((s) => s !== '' && s !== MCP_SCOPE)) return ['invalid_scope', `the only scope is ${MCP_SCOPE}`];
    return null;
  }

  /** Back to the client: the authorization response with `iss` (RFC 9207) and the state. */
  function redirectBack(reply: FastifyReply, location: string, state: string | undefined): FastifyReply {
    const url = new URL(location);
    if (state !== undefined && !url.searchParams.has('state')) url.searchParams.set('state', state);
    url.searchParams.set('iss', origin);
    return reply.code(303).header('cache-control', 'no-store').header('location', url.toString()).send();
  }

  function errorBack(reply: FastifyReply, redirectUri: string, p: Params, error: string, description: string): FastifyReply {
    const url = new URL(redirectUri);
    url.searchParams.set('error', error);
    url.searchParams.set('error_description', description);
    return redirectBack(reply, url.toString(), p.state);
  }

  const showError = (reply: FastifyReply, status: number, message: string, reason: string) =>
    reply.code(status).header('content-security-policy', ERROR_PAGE_POLICY).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(errorPage(message, reason));

  const refuse = (reply: FastifyReply, r: Refusal) => showError(r.retryAfter === undefined ? reply : reply.header('retry-after', String(r.retryAfter)), r.status, r.message, r.reason);

  /** A malformed authorization request, shown on the page with its RFC 6749 error code (no redirect). */
  const refuseRequest = (reply: FastifyReply, [error, description]: [string, string]) => showError(reply, 400, description, error);

  function showPage(reply: FastifyReply, redirectUri: string, html: string, csrf: string): FastifyReply {
    const cookie = `${CSRF_COOKIE}=${csrf}; Path=${OAUTH_PATHS.authorize}; HttpOnly; SameSite=Strict${secureCookie ? '; Secure' : ''}`;
    return reply
      .header('content-security-policy', signInPolicy(redirectUri))
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'same-origin')
      .header('set-cookie', cookie)
      .type('text/html; charset=utf-8')
      .send(html);
  }

  const carried = (p: Params, csrf: string): Params => {
    const fields: Params = {};
    for (const name of CARRIED) if (p[name] !== undefined) fields[name] = p[name];
    fields.csrf = csrf;
    return fields;
  };

  app.get(OAUTH_PATHS.authorize, async (request, reply) => {
    const p = queryParams(request);
    if (p === null) return showError(reply, 400, 'a parameter is repeated', 'invalid_request');
    oauth.sweep();
    const checked = await checkClient(p, request.ip);
    if ('reason' in checked) return refuse(reply, checked);
    const refused = requestError(p);
    if (refused !== null) return refuseRequest(reply, refused);
    const csrf = randomBytes(24).toString('base64url');
    return showPage(reply, checked.redirectUri, keyPage(checked.client, TOOL_NAMES, carried(p, csrf), null), csrf);
  });

  app.post(OAUTH_PATHS.authorize, async (request, reply) => {
    const p = request.body as Params | null;
    if (p === null || typeof p !== 'object') return showError(reply, 400, 'the form could not be read', 'invalid_request');
    // CSRF: the form's token must be the cookie this page set (SameSite=Strict), and a browser's
    // Origin, when sent, must be this one (the page's referrer policy, same-origin, keeps the
    // browser sending it rather than `null`).
    const cookie = cookieValue(request.headers.cookie, CSRF_COOKIE);
    const originHeader = request.headers.origin;
    if (cookie === null || p.csrf === undefined || !sameSecret(cookie, p.csrf) || (originHeader !== undefined && originHeader !== origin)) {
      return showError(reply, 403, 'the form expired or did not come from this page; start the sign-in again from your assistant', 'csrf');
    }
    const csrf = p.csrf;

    if (p.step === 'allow' || p.step === 'deny') {
      // Step two: the grant held since step one (the key is never in this form), taken once.
      const pending = await oauth.takeGrant(csrf);
      if (pending === null) return showError(reply, 400, 'this sign-in expired or was already answered; start it again from your assistant', 'no_pending_grant');
      const checked = await checkClient(pending.request, request.ip);
      if ('reason' in checked) return refuse(reply, checked);
      if (p.step === 'deny') return errorBack(reply, checked.redirectUri, pending.request, 'access_denied', 'the person denied access');
      if (pending.keyRevokedAt !== null) return showError(reply, 400, 'this key has been revoked', 'key_revoked');
      const grantor: Grantor = { keyId: pending.keyId, resource: oauth.resource };
      const req = new OAuth2Server.Request({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, query: {}, body: { ...pending.request, redirect_uri: checked.redirectUri } });
      const res = new OAuth2Server.Response();
      try {
        await oauth.server.authorize(req, res, { authenticateHandler: { handle: () => grantor } } as OAuth2Server.AuthorizeOptions);
      } catch (err) {
        const location = res.get('location') as string | undefined;
        if (!(err instanceof OAuth2Server.OAuthError) || location === undefined) throw err;
        rethrowServerError(err);
      }
      return redirectBack(reply, res.get('location') as string, pending.request.state);
    }

    // Step one: the key.
    const checked = await checkClient(p, request.ip);
    if ('reason' in checked) return refuse(reply, checked);
    const refused = requestError(p);
    if (refused !== null) return refuseRequest(reply, refused);
    // The admission path's key check, failures counted against the address like any other.
    const auth = await oauth.access.authenticate(`Bearer ${(p.api_key ?? '').trim()}`, request.ip);
    if (!auth.ok) {
      const why =
        auth.why === 'throttled'
          ? `too many failed attempts from this address; wait ${auth.retryAfter} s`
          : auth.why === 'revoked'
            ? 'this key has been revoked'
            : 'this is not a valid API key';
      return showPage(reply.code(400), checked.redirectUri, keyPage(checked.client, TOOL_NAMES, carried(p, csrf), why), csrf);
    }
    const held: Params = {};
    for (const name of CARRIED) if (p[name] !== undefined) held[name] = p[name];
    held.redirect_uri = checked.redirectUri;
    await oauth.holdGrant(csrf, auth.caller.keyId, checked.client.id, held);
    const limits = oauth.access.limitsOf(auth.caller.plan);
    const key = { keyPrefix: auth.caller.prefix, plan: auth.caller.plan, daily: limits.daily, burst: limits.burst };
    return showPage(reply, checked.redirectUri, reviewPage(checked.client, TOOL_NAMES, { csrf }, key), csrf);
  });

  app.post(OAUTH_PATHS.token, async (request, reply) => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || !request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return oauthError(reply, 400, 'invalid_request', 'send the parameters once each, as application/x-www-form-urlencoded');
    }
    const p = body as Params;
    if (p.resource !== undefined && p.resource !== oauth.resource) return oauthError(reply, 400, 'invalid_target', `the resource must be ${oauth.resource}`);
    const req = new OAuth2Server.Request({ method: 'POST', headers: request.headers as Record<string, string>, query: {}, body: p });
    const res = new OAuth2Server.Response();
    try {
      await oauth.server.token(req, res);
    } catch (err) {
      if (!(err instanceof OAuth2Server.OAuthError)) throw err;
      // The library's own 503 (server_error) wraps a store that did not answer: rethrown, the
      // server's error handler answers it as the outage it is.
      rethrowServerError(err);
      return oauthError(reply, err.code, err.name, err.message);
    }
    oauth.sweep();
    return cors(reply).code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').type('application/json').send(JSON.stringify(res.body));
  });

  app.post(OAUTH_PATHS.register, async (request, reply) => {
    const wait = oauth.registrationWait(request.ip);
    if (wait !== null) {
      return oauthError(reply.header('retry-after', String(wait)), 429, 'temporarily_unavailable', `too many client registrations; try again in ${wait} s`);
    }
    try {
      const registered = await oauth.clients.register(request.body);
      return cors(reply).code(201).header('cache-control', 'no-store').type('application/json').send(JSON.stringify(registered));
    } catch (err) {
      if (err instanceof ClientError) return oauthError(reply, 400, err.error, err.message);
      throw err;
    }
  });
}
