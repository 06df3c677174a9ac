// The ceiling: a bare node:http server answering each path with a pre-serialised body and
// the same response headers the real service sent for it. No routing, no auth, no JSON:
// one map lookup per request. Run as a child process by bench/run.ts:
//   node --import tsx bench/bare-server.ts <bodies.json> <port> [fastify]
// It reads request bodies (MCP POSTs) to the end before answering, as the service does.
// With `fastify`, the same answers come from a Fastify app with one catch-all route and no
// logger (JSON request bodies parsed, as Fastify does by default): the framework's own floor.

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

if (process.argv[4] === 'fastify') {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.all('/*', (request, reply) => {
    const answer = answers.get(request.url);
    if (answer === undefined) return reply.code(404).send();
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  await app.listen({ port: Number(portArg), host: '127.0.0.1' });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  serveBare();
}

function serveBare(): void {
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
}
