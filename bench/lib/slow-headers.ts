// The slow-headers flood of `npm run bench -- flood` (bench/flood.ts), run as a process of its
// own: `node --import tsx bench/lib/slow-headers.ts <url> <sockets> <seconds>`. Opens <sockets>
// sockets from 127.0.0.2 to <url>'s host and port; each sends a request line, then a header line
// a second, never the blank line that ends the headers; a socket the server closes is opened
// again a second later. After <seconds>, prints JSON counts: sockets opened, closed by the
// server within a second of connecting (past the per-address cap), closed later (the headers
// timeout), and open for over a second at the end (held by the server).

import net from 'node:net';

const [url = '', socketsArg = '1100', secondsArg = '10'] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const SOCKETS = Number(socketsArg);
const SECONDS = Number(secondsArg);

const counts = { opened: 0, 'closed within 1 s': 0, 'closed later': 0, 'held at the end': 0 };
let stopping = false;
const connectedAt = new Map<net.Socket, number>();
const sockets = new Set<net.Socket>();

function openOne(i: number): void {
  if (stopping) return;
  const socket = net.connect({ host: hostname, port: Number(port), localAddress: '127.0.0.2' });
  sockets.add(socket);
  counts.opened += 1;
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    connectedAt.set(socket, performance.now());
    socket.write(`GET /api/public/v2/rankings HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    const dribble = setInterval(() => socket.writable && socket.write(`X-Slow-${i}: ${Date.now()}\r\n`), 1_000);
    socket.once('close', () => clearInterval(dribble));
  });
  socket.once('close', () => {
    const at = connectedAt.get(socket);
    sockets.delete(socket);
    connectedAt.delete(socket);
    if (stopping) return;
    if (at === undefined || performance.now() - at < 1_000) counts['closed within 1 s'] += 1;
    else counts['closed later'] += 1;
    setTimeout(() => openOne(i), 1_000);
  });
}

for (let i = 0; i < SOCKETS; i++) openOne(i);
setTimeout(() => {
  stopping = true;
  const now = performance.now();
  counts['held at the end'] = [...sockets].filter((s) => !s.destroyed && now - (connectedAt.get(s) ?? now) >= 1_000).length;
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(0);
}, SECONDS * 1_000);
