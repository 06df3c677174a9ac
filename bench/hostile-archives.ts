// Peak memory of `npm run cli -- import --from DIR` on crafted hostile archives (docs/security.md,
// "Upstream bodies and archives"): each archive is written small into its own folder, imported
// by the real CLI in a child process under /usr/bin/time -v, and its peak RSS printed.
// Run: node --import tsx bench/hostile-archives.ts

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import iconv from 'iconv-lite';
import { startUpstream } from '../test/e2e/upstream.js';
import { overlappingZip, zipOf } from '../test/sources/helpers.js';

/** The import under /usr/bin/time -v (asynchronous: the loopback upstream answers meanwhile). */
function runTimed(files: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-v', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'import', '--from', files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const ROOT = resolve(import.meta.dirname, '..');
/** DART writes member names in CP949 without the UTF-8 flag. */
const dartMember = (kind: string): Buffer => iconv.encode(`2016_1분기보고서_${kind}_20210318.txt`, 'cp949');
const HEADER = ['재무제표종류', '종목코드', '회사명', '시장구분', '업종', '업종명', '결산월', '결산기준일', '보고서종류', '통화', '항목코드', '항목명', '당기 1분기 3개월', '당기 1분기 누적'].join('\t');

/** Rows the mapping keeps (revenue), for companies 000001.. : a DART member full of kept rows. */
function mappedRows(bytes: number): Buffer {
  const parts: string[] = [HEADER];
  let n = 0;
  let size = HEADER.length;
  while (size < bytes) {
    const code = String(100000 + (n % 900000)).padStart(6, '0');
    const line = `손익계산서\t[${code}]\t회사${n}\t유가증권시장상장법인\t264\t업종\t12\t2016-03-31\t1분기보고서\tKRW\tifrs_Revenue\t수익(매출액)\t${n}\t${n}`;
    parts.push(line);
    size += Buffer.byteLength(line) + 1;
    n += 1;
  }
  return Buffer.from(parts.join('\n'), 'utf8');
}

/** Apple's companyfacts member name (a listed CIK of the recorded ticker list the loopback upstream serves). */
const APPLE = 'CIK0000320193.json';

const cases: [string, string, () => Uint8Array, 'dart' | 'sec'][] = [
  ['overlap', '2016_1Q_PL_20210317040000.zip: 4 names on one deflate stream of a 200 MB member (16 would pass the 1 GiB declared total first)', () => overlappingZip(Array.from({ length: 4 }, (_, i) => `2016_1Q_${i}.txt`), Buffer.alloc(200 * 1024 * 1024, 0x41)), 'dart'],
  ['bomb', '2016_1Q_PL_20210317040000.zip: a header then 500 MB of empty lines, read through', () => zipOf([{ name: dartMember('02_손익계산서'), content: Buffer.concat([Buffer.from(HEADER), Buffer.alloc(500 * 1024 * 1024, 0x0a)]) }]), 'dart'],
  ['tabs', '2016_1Q_PL_20210317040000.zip: a header line of 133 MB of tabs', () => zipOf([{ name: dartMember('02_손익계산서'), content: Buffer.alloc(133 * 1024 * 1024, 0x09) }]), 'dart'],
  ['rows', '2016_1Q_PL_20210317040000.zip: 500 MB of rows the mapping keeps (the period row cap)', () => zipOf([{ name: dartMember('02_손익계산서'), content: mappedRows(500 * 1024 * 1024) }]), 'dart'],
  ['deep', 'companyfacts.zip: a listed company\'s member of 63 million nested arrays (126 MB)', () => zipOf([{ name: APPLE, content: Buffer.concat([Buffer.alloc(63_000_000, 0x5b), Buffer.alloc(63_000_000, 0x5d)]) }]), 'sec'],
  ['wide', 'companyfacts.zip: a listed company\'s member of 42 million empty objects in one array (127 MB, under the 128 MiB member cap)', () => zipOf([{ name: APPLE, content: Buffer.from(`[${'{},'.repeat(42_000_000)}{}]`) }]), 'sec'],
  ['strings', 'companyfacts.zip: a listed company\'s member of 15,999,999 one-character strings in one array (64 MB: every one built, just under the value cap)', () => zipOf([{ name: APPLE, content: Buffer.from(`[${'"a",'.repeat(15_999_998)}"a"]`) }]), 'sec'],
];

const only = process.argv[2];
const upstream = await startUpstream();
for (const [id, what, make, kind] of cases) {
  if (only && id !== only) continue;
  const dir = mkdtempSync(join(tmpdir(), `hostile-${id}-`));
  const files = join(dir, 'files');
  mkdirSync(files);
  const zip = join(files, kind === 'dart' ? '2016_1Q_PL_20210317040000.zip' : 'companyfacts.zip');
  writeFileSync(zip, make());
  // SEC's reader takes its ticker list from the loopback upstream of recorded answers.
  const sec: Record<string, string> = kind === 'sec' ? { SEC_USER_AGENT: 'bench admin@example.com', SEC_TICKERS: 'AAPL', SEC_BASE_URL: upstream.base, SEC_DATA_BASE_URL: upstream.base, ECB_BASE_URL: upstream.base } : {};
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', ...sec };
  const t0 = Date.now();
  const r = await runTimed( files, env);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
  const failed = [...r.stdout.matchAll(/FAILED (.*)/g)].map((m) => m[1]).join('; ') || (/\n {6,}\d+ {2}member (nested deeper|with more values)[^\n]*/.exec(r.stdout)?.[0].trim() ?? '');
  console.log(`${id}: ${what}; ${statSync(zip).size} bytes on disk; exit ${r.status}; ${((Date.now() - t0) / 1000).toFixed(1)} s; peak RSS ${(Number(rss) / 1024).toFixed(0)} MiB; ${failed}`);
  rmSync(dir, { recursive: true, force: true });
}
await upstream.close();
