// Which host names only this machine reaches: 127.0.0.0/8, ::1 (bare or bracketed) and
// localhost. Pure, so the CLI's banner and the dashboard (web/src/api.ts) share it.

const IPV4_LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const m = IPV4_LOOPBACK.exec(bare);
  return m !== null && m.slice(1).every((octet) => Number(octet) <= 255);
}
