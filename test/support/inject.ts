// fetch() through Fastify's inject(): a request reaches the routes, hooks and serialisers of
// the real server without a socket (light-my-request builds the request and collects the
// reply), so a door test needs no port. What only a socket shows (keep-alive, timeouts, raw
// bytes, a client's disconnect) stays with the real-HTTP tests (startTestServer, startInstance).

import type { FastifyInstance } from 'fastify';

/** The origin of URLs handed to an injecting fetch; only path and query reach the server. */
export const INJECT_ORIGIN = 'http://localhost';

/**
 * A `fetch` that sends each request to `server.inject()`: method, path with query, headers and
 * body as given; the reply as a standard Response (status, headers, body bytes).
 */
export function injectFetch(server: Pick<FastifyInstance, 'inject'>): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const reply = await server.inject({
      method: request.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(body === undefined ? {} : { payload: body }),
    });
    const replyHeaders = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      if (Array.isArray(value)) for (const v of value) replyHeaders.append(name, v);
      else if (value !== undefined) replyHeaders.set(name, String(value));
    }
    // A Response for these statuses must not have a body (the Fetch standard's null body status).
    const nullBody = reply.statusCode === 101 || reply.statusCode === 204 || reply.statusCode === 205 || reply.statusCode === 304;
    return new Response(nullBody ? null : reply.rawPayload, { status: reply.statusCode, statusText: reply.statusMessage, headers: replyHeaders });
  };
}
