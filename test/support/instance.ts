// The service as its own process (`src/cli/main.ts serve`), for tests of what only a real
// process shows: start-up, stdout, signals, several instances.

import { spawn, type ChildProcess } from 'node:child_process';

export interface Instance {
  child: ChildProcess;
  url: string;
  /** stdout and stderr chunks as they came. */
  output: string[];
}

export function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start: ${output.join('').slice(-500)}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /Listening on (http:\/\/[\d.]+:\d+)/.exec(output.join(''));
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
    child.on('exit', (code) => reject(new Error(`instance exited with ${code}: ${output.join('').slice(-500)}`)));
  });
}

export async function waitReady(url: string, timeoutMs = 180_000): Promise<{ dataVersion: number }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`).catch(() => null);
    if (res?.status === 200) return (await res.json()) as { dataVersion: number };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not ready`);
}
