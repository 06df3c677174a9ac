// `npm start`'s build step: builds the service and the dashboard (`npm run build`) only when
// their sources changed since the last build, and says first when the port `serve` will listen
// on is taken, so a second start neither rebuilds nor waits on a build to learn that.
//
// The sources are every file under src/ and web/ (but the built web/dist and web/views/dist),
// package.json,
// package-lock.json and the tsconfig files, hashed by path and content (a checkout that only
// touches mtimes does not rebuild; an edit does). The hash of the last good build is kept in
// dist/.build-stamp; a build that fails writes none. A missing output (dist/cli/main.js,
// web/dist/index.html, the MCP Apps view web/views/dist/index.html) builds too.
//
//   node scripts/build-if-changed.mjs [--root DIR] [--no-port-check] [-- build command...]
//
// --root runs on another copy of the tree, and a build command after `--` replaces
// `npm run build --silent` (the test, test/cli/build-if-changed.test.ts, uses both). The port is
// HOST:PORT as `serve` reads them (defaults 127.0.0.1:8080). Exit status: 0 when the build is
// current or was made, 1 when the port is taken or the build failed.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/** What a build reads: directories are walked (the built web/dist and web/views/dist and node_modules left out). */
export const INPUTS = ['src', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIPPED = new Set(['web/dist', 'web/views/dist', 'node_modules']);
/** What a build writes and `serve` needs. */
export const OUTPUTS = ['dist/cli/main.js', 'web/dist/index.html', 'web/views/dist/index.html'];
export const STAMP = 'dist/.build-stamp';

/** sha256 over the inputs' relative paths and contents, in path order. */
export function sourcesHash(root) {
  const files = [];
  const walk = (rel) => {
    if (SKIPPED.has(rel)) return;
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) for (const name of readdirSync(abs).sort()) walk(`${rel}/${name}`);
    else files.push(rel);
  };
  for (const input of INPUTS) walk(input);
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
}

/** Why a build is needed, or null when the last build is of these sources. */
export function buildReason(root, hash = sourcesHash(root)) {
  const missing = OUTPUTS.find((out) => !existsSync(join(root, out)));
  if (missing !== undefined) return `${missing} is missing`;
  const stampPath = join(root, STAMP);
  if (!existsSync(stampPath)) return 'no record of the last build';
  return readFileSync(stampPath, 'utf8').trim() === hash ? null : 'the sources changed since the last build';
}

/** Null when `host:port` can be listened on, else one line saying why not (as `serve` would). */
export function portProblem(host, port) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (err) => {
      const code = err && typeof err === 'object' ? err.code : undefined;
      if (code === 'EADDRINUSE') done(`Port ${port} on ${host} is already in use (another copy of the service?). Stop it, or start on another port: PORT=${port === 8080 ? 8081 : port + 1} npm start`);
      // Other failures (privileges, an address not of this machine) are `serve`'s to explain.
      else done(null);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done(null)));
  });
}

async function main(argv) {
  const dash = argv.indexOf('--');
  const options = dash === -1 ? argv : argv.slice(0, dash);
  const command = dash === -1 ? ['npm', 'run', 'build', '--silent'] : argv.slice(dash + 1);
  const rootAt = options.indexOf('--root');
  const root = resolve(rootAt === -1 ? join(import.meta.dirname, '..') : (options[rootAt + 1] ?? '.'));

  if (!options.includes('--no-port-check')) {
    const port = Number(process.env.PORT ?? 8080);
    const host = process.env.HOST ?? '127.0.0.1';
    // A port `serve` would refuse anyway (not a number, 0 for any free one) is not checked here.
    if (Number.isInteger(port) && port > 0 && port <= 65_535) {
      const problem = await portProblem(host, port);
      if (problem !== null) {
        console.error(problem);
        return 1;
      }
    }
  }

  const hash = sourcesHash(root);
  const reason = buildReason(root, hash);
  if (reason === null) {
    console.log('build: up to date (no source changed since the last build)');
    return 0;
  }
  console.log(`build: building (${reason})`);
  const started = Date.now();
  const built = spawnSync(command[0], command.slice(1), { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (built.status !== 0) {
    console.error(`build: failed (exit ${built.status ?? built.signal})`);
    return 1;
  }
  writeFileSync(join(root, STAMP), `${hash}\n`);
  console.log(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) process.exit(await main(process.argv.slice(2)));
