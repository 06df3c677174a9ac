// The ceiling: a bare node:http server answering each path with a pre-serialised body and
// the same response headers the real service sent for it. No routing, no auth, no JSON:
// one map lookup per request. Run as a child process by bench/run.ts:
//   node --import tsx bench/bare-server.ts <bodies.json> <port>
// It reads request bodies (MCP POSTs) to the end before answering, as the service does.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const [file, portArg] = process.argv.slice(2);
if (file === undefined || portArg === undefined) throw new Error('usage: bare-server.ts <bodies.json> <port>');
const canned = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Canned>;
const answers = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();
for (const [path, c] of Object.entries(canned)) {
  const body = Buffer.from(c.body, 'utf8');
  answers.set(path, { status: c.status, headers: { ...c.headers, 'content-length': body.byteLength }, body });
}

const server = createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  req.resume();
  req.on('end', () => {
    if (answer === undefined) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(Number(portArg), '127.0.0.1', () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
