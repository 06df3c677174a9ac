// The service as its own process (the CLI's `serve`, or another of its commands), for tests of
// what only a real process shows: start-up, stdout, signals, kills, several instances.

import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { until } from './until.js';

/** The CLI's TypeScript entry, run through tsx. */
const SOURCE_MAIN = resolve(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

export interface SpawnOptions {
  /** The process's environment, over this process's own unless `inheritEnv` is false. */
  env: Record<string, string>;
  inheritEnv?: boolean;
  /** The CLI's entry: the TypeScript source through tsx (default), or a built `dist/cli/main.js`. */
  main?: string;
  /** The command and its arguments (default `serve`). */
  args?: string[];
  cwd?: string;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** stdout and stderr chunks as they came. */
  output: string[];
  /** The address of its `Listening on` line; null until it is printed. */
  url: string | null;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) and resolves the exit code; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/** An instance that listens: its `url` is known. */
export type Instance = ServiceProcess & { url: string };

/** Starts the CLI as a child process; returns at once, its output and address filling in as they come. */
export function spawnService(options: SpawnOptions): ServiceProcess {
  const main = options.main ?? SOURCE_MAIN;
  const node = main.endsWith('.ts') ? ['--import', 'tsx', main] : [main];
  const child = spawn(process.execPath, [...node, ...(options.args ?? ['serve'])], {
    env: options.inheritEnv === false ? options.env : { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const service: ServiceProcess = {
    child,
    output: [],
    url: null,
    exited,
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    service.output.push(chunk.toString());
    service.url ??= /Listening on (http:\/\/[\d.]+:\d+)/.exec(service.output.join(''))?.[1] ?? null;
  });
  child.stderr?.on('data', (chunk: Buffer) => service.output.push(chunk.toString()));
  return service;
}

/** Starts `serve` with `env` and resolves once it listens; rejects if it exits first or takes over 60 s. */
export async function startInstance(env: Record<string, string>, options: Omit<SpawnOptions, 'env'> = {}): Promise<Instance> {
  const service = spawnService({ ...options, env });
  const ended = () => service.child.exitCode !== null || service.child.signalCode !== null;
  await until(() => service.url !== null || ended(), { timeoutMs: 60_000 });
  if (service.url === null) {
    if (!ended()) service.child.kill('SIGKILL');
    throw new Error(`instance did not start (exit ${service.child.exitCode}): ${service.output.join('').slice(-500)}`);
  }
  return service as Instance;
}

/** Resolves /readyz's body once it answers 200; throws after `timeoutMs`. */
export async function waitReady(url: string, timeoutMs = 180_000): Promise<{ dataVersion: number }> {
  let body: { dataVersion: number } | null = null;
  const ready = await until(
    async () => {
      const res = await fetch(`${url}/readyz`).catch(() => null);
      if (res?.status === 200) body = (await res.json()) as { dataVersion: number };
      return body !== null;
    },
    { timeoutMs, intervalMs: 250 },
  );
  if (!ready || body === null) throw new Error(`${url} not ready`);
  return body;
}
