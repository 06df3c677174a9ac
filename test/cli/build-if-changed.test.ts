// `npm start`'s build step (scripts/build-if-changed.mjs) as a spawned process on a small
// temporary tree, with a stand-in build command that writes the outputs and counts its runs: the
// first start builds, the second skips, an edited source or a missing output builds again, a
// failed build leaves no stamp, and a taken port is reported before any build.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../support/tmp.js';

const SCRIPT = resolve(import.meta.dirname, '..', '..', 'scripts', 'build-if-changed.mjs');

/** The stand-in for `npm run build`: writes the three outputs and appends one line to builds.log. */
const FAKE_BUILD = [
  process.execPath,
  '-e',
  "const fs = require('node:fs'); fs.mkdirSync('dist/cli', { recursive: true }); fs.writeFileSync('dist/cli/main.js', ''); " +
    "fs.mkdirSync('web/dist', { recursive: true }); fs.writeFileSync('web/dist/index.html', ''); " +
    "fs.mkdirSync('web/views/dist', { recursive: true }); fs.writeFileSync('web/views/dist/index.html', ''); fs.appendFileSync('builds.log', 'built\\n'); " +
    "if (process.env.FAIL_BUILD === '1') process.exit(3);",
];

interface Exit {
  code: number | null;
  out: string;
}

function run(root: string, env: Record<string, string> = {}, extra: string[] = ['--no-port-check']): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SCRIPT, '--root', root, ...extra, '--', ...FAKE_BUILD], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

describe('npm start: build only when the sources changed', () => {
  const tmp = tempDir();
  const root = tmp.dir;
  const builds = () => readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
  let blocker: Server;

  before(() => {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    mkdirSync(join(root, 'web', 'src'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'web', 'src', 'main.ts'), 'export const b = 2;\n');
    writeFileSync(join(root, 'package.json'), '{}\n');
    writeFileSync(join(root, 'package-lock.json'), '{}\n');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    writeFileSync(join(root, 'builds.log'), '');
  });
  after(() => {
    blocker?.close();
    tmp.cleanup();
  });

  it('builds on the first start and skips on the second', async () => {
    const first = await run(root);
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /build: building \(dist\/cli\/main\.js is missing\)/);
    assert.equal(builds(), 1);
    const second = await run(root);
    assert.equal(second.code, 0, second.out);
    assert.match(second.out, /^build: up to date/m);
    assert.equal(builds(), 1, 'the second start did not build');
  });

  it('builds again after a source edit, and not for a touched but unchanged file or the built page', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'cli', 'main.ts'), later, later);
    writeFileSync(join(root, 'web', 'dist', 'index.html'), '<!doctype html>'); // an output, not a source
    writeFileSync(join(root, 'web', 'views', 'dist', 'index.html'), '<!doctype html>'); // the Apps view's output, not a source
    assert.match((await run(root)).out, /up to date/);
    assert.equal(builds(), 1);
    writeFileSync(join(root, 'web', 'src', 'main.ts'), 'export const b = 3;\n');
    const edited = await run(root);
    assert.match(edited.out, /building \(the sources changed since the last build\)/);
    assert.equal(builds(), 2);
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    assert.match((await run(root)).out, /building/);
    assert.equal(builds(), 3);
    assert.match((await run(root)).out, /up to date/);
    assert.equal(builds(), 3);
  });

  it('builds when an output is gone, and a failed build leaves no stamp (the next start builds again)', async () => {
    rmSync(join(root, 'web', 'dist', 'index.html'));
    assert.match((await run(root)).out, /building \(web\/dist\/index\.html is missing\)/);
    assert.equal(builds(), 4);
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export const a = 2;\n');
    const failed = await run(root, { FAIL_BUILD: '1' });
    assert.equal(failed.code, 1);
    assert.match(failed.out, /build: failed \(exit 3\)/);
    assert.equal(builds(), 5);
    assert.match((await run(root)).out, /building \(the sources changed since the last build\)/);
    assert.equal(builds(), 6);
  });

  it('says the port is taken before building, in the words serve uses', async () => {
    blocker = createServer();
    await new Promise<void>((done) => blocker.listen({ host: '127.0.0.1', port: 0 }, done));
    const { port } = blocker.address() as AddressInfo;
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export const a = 3;\n');
    const taken = await run(root, { HOST: '127.0.0.1', PORT: String(port) }, []);
    assert.equal(taken.code, 1);
    assert.match(taken.out, new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.equal(builds(), 6, 'no build was started');
    blocker.close();
    await new Promise((done) => setTimeout(done, 50));
    const free = await run(root, { HOST: '127.0.0.1', PORT: String(port) }, []);
    assert.equal(free.code, 0, free.out);
    assert.equal(builds(), 7);
  });
});
