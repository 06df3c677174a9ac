// Which `Host` a request may name, once the service knows its public origin(s) (`PUBLIC_URL`):
// one of theirs (with or without the scheme's default port), or a loopback name at any port (the
// instance itself: the stdio bridge, a local proxy, an operator's curl). A page that rebinds its
// own DNS name to this server's address still sends its own name as Host, and is refused. With no
// public origin configured nothing is checked (an instance reached by its address keeps working).

const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/;

/** A predicate over `Host` values (Fastify's `request.host`, which honours `X-Forwarded-Host` from a trusted proxy); null: no check. */
export function hostCheck(publicOrigins: readonly string[]): ((host: string) => boolean) | null {
  if (publicOrigins.length === 0) return null;
  const allowed = new Set<string>();
  for (const origin of publicOrigins) {
    const url = new URL(origin);
    allowed.add(url.host.toLowerCase());
    // URL drops a default port from `host`; a client or proxy may still send it.
    if (url.port === '') allowed.add(`${url.hostname.toLowerCase()}:${url.protocol === 'https:' ? 443 : 80}`);
  }
  return (host) => {
    const h = host.toLowerCase();
    return allowed.has(h) || LOOPBACK_HOST.test(h);
  };
}
