// The README walked as a newcomer walks it: `serve` started as `npm start` starts it (a fresh
// DATA_DIR, the key and the doors read from its banner), then the tour's and the MCP section's
// shell blocks run as one bash script, as pasted, through a curl that records each answer's
// status and body. Every answer must be 2xx (none past the free plan's burst: the tour is
// paced), every search must find the company the README says it finds, and no MCP answer may
// be an error. Also: the companies the README, the tool descriptions and the prompts name are
// in the demo as shipped (seed and scale 1), and the real-sources recipe exports DATA_DIR for
// every command.
//
// The demo of another scale is another invented universe, so on the small demo tests use
// (README_WALK_SCALE, default 0.05) the scale-1 companies the README names are replaced, line
// by line, by the small universe's own of the same kind (its largest KR company for 성산전자,
// a US company for Fenix Airlines, a class-B share for CORI.B). `README_WALK_SCALE=1` runs the
// README's lines exactly as written (about 20 s more of loading on an idle 2-core machine).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { initialsOf, searchIndex, searchKey, searchStocks, type SearchEntry } from '../../src/domain/search.js';
import { buildUniverse } from '../../src/sources/demo/universe.js';
import { DEFAULT_DEMO_SEED } from '../../src/sources/demo/index.js';
import { searchStocks as searchTool } from '../../src/tools/search-stocks.js';
import { buildPrompts } from '../../src/http/mcp-prompts.js';
import { TOOLS } from '../../src/tools/registry.js';
import { spawnService, type ServiceProcess } from '../support/instance.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CURL = '/usr/bin/curl';
const SCALE = Number(process.env.README_WALK_SCALE ?? '0.05');

/** The `nth` fenced block of `lang` after the heading `heading` (and before the next heading of its level). */
function block(heading: string, lang: string, nth = 0): string {
  const start = README.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has the heading ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  assert.ok(blocks[nth] !== undefined, `${heading} has a ${lang} block #${nth}`);
  return blocks[nth];
}

/** The demo universe of a scale, as search_stocks indexes it. */
function universeIndex(scale: number) {
  const profiles = buildUniverse({ seed: DEFAULT_DEMO_SEED, size: 'default', scale });
  const entries: SearchEntry[] = profiles.map((p) => ({
    market: p.security.market,
    code: p.security.code,
    name: p.security.name,
    nameEn: p.security.nameEn ?? null,
    exchange: p.security.exchange,
    sector: p.security.sector,
    currency: p.security.currency,
    band: p.band,
    marketCap: p.targetMarketCap,
  }));
  return { profiles, index: searchIndex(entries, 1400) };
}

const firstMatch = (index: ReturnType<typeof universeIndex>['index'], q: string, market?: 'KR' | 'US') =>
  searchStocks(index, { q, market, limit: 10 }).matches[0]?.entry.code ?? null;

/** Compatibility jamo (what people type: ㅅ) for the initial consonants of a name. */
const COMPAT_INITIALS = 'ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ';
function typedInitials(name: string): string {
  return [...initialsOf(searchKey(name))].map((ch) => COMPAT_INITIALS[(ch.codePointAt(0) as number) - 0x1100] ?? ch).join('');
}

describe('the README: what it names is in the demo as shipped', () => {
  const { index } = universeIndex(1);

  it('the tour\'s searches find the companies the README says, at the default seed and scale', () => {
    assert.equal(firstMatch(index, '성산'), '390510');
    assert.equal(firstMatch(index, 'ㅅㅅㅈㅈ', 'KR'), '390510');
    assert.equal(firstMatch(index, 'fenix air'), 'FENI');
    assert.equal(firstMatch(index, '390510'), '390510');
    assert.equal(firstMatch(index, 'cori-b'), 'CORI.B');
    assert.equal(firstMatch(index, '성산전자'), '390510');
    assert.equal(firstMatch(index, 'Seongsan Electronics'), '390510');
    assert.equal(firstMatch(index, 'Fenix Airlines'), 'FENI');
    assert.equal(firstMatch(index, '화성식품'), '000570');
    assert.match(README, /성산전자 `390510`, Fenix\s+Airlines `FENI`, Coris Resources `CORI\.B`/);
  });

  it('every quoted example of search_stocks\' description and of the prompts finds a demo company', () => {
    const quoted = [...searchTool.description.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(quoted, ['성산', 'seongsan elec', 'ㅅㅅㅈㅈ', '3905', 'fenix air', 'cori-b']);
    for (const q of quoted) assert.notEqual(firstMatch(index, q), null, q);
    const prompts = buildPrompts(TOOLS);
    const examples = prompts.flatMap((p) => Object.values(p.args).flatMap((a) => /e\.g\. (.+)$/.exec(a.description)?.[1]?.split(', ') ?? []));
    assert.deepEqual(examples, ['성산전자', 'Seongsan Electronics', '390510', 'Fenix Airlines', 'FENI', '390510', '화성식품', 'FENI']);
    for (const q of examples) assert.notEqual(firstMatch(index, q), null, q);
  });

  it('the real-sources recipe exports DATA_DIR before its first command', () => {
    const recipe = block('## Running against the real sources', 'sh');
    const lines = recipe.split('\n').filter((l) => l.trim() !== '');
    const exported = lines.findIndex((l) => /^export DATA_DIR=\S+/.test(l));
    const firstCommand = lines.findIndex((l) => /^npm /.test(l));
    assert.ok(exported >= 0 && exported < firstCommand, recipe);
    assert.ok(!/^DATA_DIR=/m.test(recipe), 'no DATA_DIR set for one command only');
  });
});

describe('the README walked against a started service', { skip: existsSync(CURL) ? false : `${CURL} not installed` }, () => {
  const tmp = tempDir();
  let server: ServiceProcess;
  let banner = '';
  let key = '';
  let url = '';

  before(async () => {
    // Only the environment the README's reader has (no variables of this process), from the
    // repository's root as `npm start` runs it.
    server = spawnService({
      env: { PATH: process.env.PATH ?? '', DATA_DIR: join(tmp.dir, 'data'), HOST: '127.0.0.1', PORT: '0', DEMO_SCALE: String(SCALE), LOG_LEVEL: 'silent', REFRESH_SCHEDULE: 'off' },
      inheritEnv: false,
      cwd: ROOT,
    });
    const ready = () => server.output.join('').includes('\nReady: ') || server.child.exitCode !== null;
    await until(ready, { timeoutMs: 300_000, intervalMs: 100 });
    banner = server.output.join('');
    assert.ok(banner.includes('\nReady: '), `serve printed its Ready line (exit ${server.child.exitCode}): ${banner}`);
    key = /^(sk_live_\S+)$/m.exec(banner)?.[1] ?? '';
    url = /^Listening on (\S+)$/m.exec(banner)?.[1] ?? '';
  });
  after(async () => {
    await server.stop('SIGTERM');
    tmp.cleanup();
  });

  it('the banner names the demo key for what it is and every door with its URL', () => {
    assert.match(banner, /^\nDemo API key \(free plan, for the demo universe; shown once; create more with: npm run cli -- keys create --plan free\):\nsk_live_/);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const doors = banner.slice(banner.indexOf('Listening on'));
    assert.equal(
      doors.split('\n').slice(0, 5).join('\n'),
      [
        `Listening on ${url}`,
        `  Dashboard  ${url}/  (asks once for an API key; the browser keeps it)`,
        `  REST API   ${url}/api/public/v2  (OpenAPI: ${url}/api/public/v2/openapi.json)`,
        `  MCP        POST ${url}/api/mcp`,
        `  Docs       ${url}/docs`,
      ].join('\n'),
    );
  });

  it('the tour and the MCP examples, run as one script: every answer 2xx, every search finds its company, no MCP error', async () => {
    // The companies the lines name, for this scale's universe.
    const { profiles } = universeIndex(SCALE);
    const kr = profiles.filter((p) => p.security.market === 'KR').sort((a, b) => b.targetMarketCap - a.targetMarketCap)[0]!.security;
    const us = profiles.filter((p) => p.security.market === 'US' && !p.security.code.includes('.')).sort((a, b) => b.targetMarketCap - a.targetMarketCap)[0]!.security;
    const classB = profiles.find((p) => p.security.code.endsWith('.B'))!.security;
    const named = SCALE === 1
      ? { kr: '390510', us: 'FENI', classB: 'CORI.B' }
      : { kr: kr.code, us: us.code, classB: classB.code };
    const swaps: [string, string][] = SCALE === 1
      ? []
      : [
          ['q=성산"', `q=${kr.name.slice(0, 2)}"`],
          ['q=ㅅㅅㅈㅈ"', `q=${typedInitials(kr.name)}"`],
          ['q=fenix air"', `q=${us.name.toLowerCase().split(' ')[0]}"`],
          ['/stocks/390510/', `/stocks/${kr.code}/`],
          ['/stocks/cori-b/', `/stocks/${classB.code.toLowerCase().replace('.', '-')}/`],
          ['"stock":"성산전자"', `"stock":"${kr.name}"`],
          ['"uri":"stock://KR/390510/snapshot"', `"uri":"stock://KR/${kr.code}/snapshot"`],
          ['"value":"성산"', `"value":"${kr.name.slice(0, 2)}"`],
        ];
    let script = [block('## A short tour', 'sh'), block('### JSON-RPC / MCP', 'sh', 0), block('### JSON-RPC / MCP', 'sh', 1)].join('\n');
    for (const [from, to] of swaps) {
      assert.ok(script.includes(from), `the README still has ${from}`);
      script = script.replaceAll(from, to);
    }
    assert.match(script, /^KEY=sk_live_\.\.\. /m);
    script = script.replace(/^KEY=sk_live_\.\.\. /m, `KEY=${key} `).replaceAll('http://127.0.0.1:8080', url);

    // curl as the README runs it, plus: each answer's status, URL and body file on stderr.
    const bin = join(tmp.dir, 'bin');
    const bodies = join(tmp.dir, 'bodies');
    mkdirSync(bin);
    mkdirSync(bodies);
    writeFileSync(join(bin, 'curl'), `#!/bin/sh\nout=$(mktemp "${bodies}/XXXXXX")\n${CURL} -w "%{stderr}%{http_code} %{url_effective} $out\\n" "$@" | tee "$out"\n`);
    chmodSync(join(bin, 'curl'), 0o755);
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn('bash', ['--norc', '--noprofile', '-c', `set -e\n${script}`], { env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, cwd: tmp.dir });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.trim().split('\n');
    const others = lines.filter((line) => !/^\d{3} \S+ \S+$/.test(line));
    assert.deepEqual(others, [], 'the script wrote nothing else to stderr');
    const answers = lines
      .map((line) => {
        const [status, answerUrl, file] = line.split(' ');
        return { status: Number(status), url: decodeURIComponent(answerUrl ?? ''), body: JSON.parse(readFileSync(file ?? '', 'utf8')) as unknown };
      });
    // The tour: 17 `api` lines (one of them inside CODE=$(...)); MCP: 5 + 4 curl calls.
    assert.equal(answers.length, 26, run.stderr);
    for (const a of answers) assert.ok(a.status >= 200 && a.status < 300, `${a.status} ${a.url}`);

    const searches = answers.filter((a) => a.url.includes('/stocks?'));
    const found = searches.map((a) => (a.body as { matches: { code: string }[] }).matches[0]?.code);
    assert.deepEqual(found, [named.kr, named.kr, named.us]);
    const score = answers.find((a) => a.url.endsWith(`/stocks/${named.kr}/score`))!.body as { code: string };
    assert.equal(score.code, named.kr);
    const snapshot = answers.find((a) => a.url.includes('/snapshot') && a.url.includes(named.classB.toLowerCase().replace('.', '-')))!.body as { code: string };
    assert.equal(snapshot.code, named.classB);

    const mcp = answers.filter((a) => a.url.endsWith('/api/mcp')).flatMap((a) => (Array.isArray(a.body) ? a.body : [a.body])) as {
      error?: unknown;
      result?: { isError?: boolean; messages?: { content: { text: string } }[] };
    }[];
    assert.equal(mcp.length, 10, 'nine calls, one of them a batch of two');
    for (const m of mcp) {
      assert.equal(m.error, undefined, JSON.stringify(m));
      assert.notEqual(m.result?.isError, true, JSON.stringify(m));
    }
    const prompt = mcp.find((m) => m.result?.messages)!;
    assert.match(prompt.result!.messages![0]!.content.text, new RegExp(`Look up the stock "${SCALE === 1 ? '성산전자' : kr.name}"`));
    // The template read is the company's snapshot; the completion of its name's first two letters brings its code first.
    const read = mcp.find((m) => (m.result as { contents?: { uri: string }[] } | undefined)?.contents?.[0]?.uri.startsWith('stock://')) as { result: { contents: { text: string }[] } };
    assert.equal((JSON.parse(read.result.contents[0]!.text) as { code: string }).code, named.kr);
    const completion = mcp.find((m) => (m.result as { completion?: unknown } | undefined)?.completion) as { result: { completion: { values: string[] } } };
    assert.equal(completion.result.completion.values[0], named.kr);
  });
});
