// A configuration the process cannot run with (a variable out of range, a URL of the wrong kind,
// a KEY_PEPPER that is not the one the stored keys were peppered with) is one line on stderr and
// exit 1, never an uncaught exception with a stack: each case run as the CLI's own process.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../support/tmp.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run cli -- <args>` as a child process, with only the environment given. */
function cli(args: string[], env: Record<string, string>): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('configuration errors: one line, exit 1, no stack', () => {
  const tmp = tempDir('cli-config-');
  after(tmp.cleanup);

  it('a port past 65535, a database URL that is not PostgreSQL, a Redis URL that is not Redis, a short KEY_PEPPER', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: '70000' }, 'invalid configuration: PORT: must be a port number (0 to 65535)\n'],
      [{ DATABASE_URL: 'mysql://db.example/svc' }, 'invalid configuration: DATABASE_URL: must be a postgres:// or postgresql:// URL\n'],
      [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'invalid configuration: REDIS_URL: must be a redis:// or rediss:// URL\n'],
      [{ KEY_PEPPER: 'short' }, 'invalid configuration: KEY_PEPPER: must be at least 16 characters\n'],
    ];
    for (const [env, message] of cases) {
      for (const command of [['keys', 'list'], ['serve']]) {
        const exit = await cli(command, { DATA_DIR: join(tmp.dir, 'unused'), ...env });
        assert.deepEqual([exit.code, exit.stderr], [1, message], `${command.join(' ')} with ${JSON.stringify(env)}`);
      }
    }
  });

  it('a KEY_PEPPER other than the one the stored keys were peppered with', async () => {
    const dataDir = join(tmp.dir, 'peppered');
    const created = await cli(['keys', 'create', '--plan', 'free'], { DATA_DIR: dataDir, KEY_PEPPER: 'the-first-pepper-0123456789' });
    assert.equal(created.code, 0, created.stderr);
    const exit = await cli(['keys', 'list'], { DATA_DIR: dataDir, KEY_PEPPER: 'another-pepper-0123456789' });
    assert.equal(exit.code, 1);
    assert.match(exit.stderr, /^invalid configuration: KEY_PEPPER: KEY_PEPPER is not the secret the stored API keys were peppered with \(stored hmac-sha256:[0-9a-f]{16}, configured hmac-sha256:[0-9a-f]{16}\); start with that secret\n$/);
    const without = await cli(['keys', 'list'], { DATA_DIR: dataDir });
    assert.deepEqual([without.code, without.stderr], [1, 'invalid configuration: KEY_PEPPER: the stored API keys are peppered (KEY_PEPPER); start with the same KEY_PEPPER\n']);
  });
});
