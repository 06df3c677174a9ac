// `npm run cli -- backtest` as its own process on a temporary SQLite store holding the
// constructed market of ../serving/backtest-store.ts (every return derived by hand there): the
// table and summary lines, the CSV, the demo notice, and each invalid option's message and exit
// code (2; 1 when the store cannot answer).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { writeBacktestMarket } from '../serving/backtest-store.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);

function cleanEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DART_API_KEY', 'DATA_GO_KR_API_KEY', 'KRX_COOKIE', 'KRX_ENABLED', 'SEC_USER_AGENT', 'SEC_TICKERS', 'US_PRICES_API_KEY', 'ECOS_API_KEY', 'DATABASE_URL']) delete env[k];
  return { ...env, LOG_LEVEL: 'silent', DATA_DIR: dataDir };
}

const cli = (args: string[], dataDir: string) => run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'backtest', ...args], { env: cleanEnv(dataDir) });

/** The process's exit code and stderr, for a run that must fail. */
async function failure(args: string[], dataDir: string): Promise<{ code: number; stderr: string }> {
  try {
    await cli(args, dataDir);
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
  assert.fail(`backtest ${args.join(' ')} succeeded`);
}

const HEADER = 'date        end         picks  mean return  hit rate  market mean    excess  market stocks';

describe('cli backtest', () => {
  const tmp = tempDir('cli-backtest-');
  const data = join(tmp.dir, 'data');
  const csv = join(tmp.dir, 'out.csv');

  before(async () => {
    const store = await openSqliteStore(join(data, 'service.sqlite'));
    await writeBacktestMarket(store.market);
    await store.close();
  });
  after(() => tmp.cleanup());

  it('prints the table and the summary, and writes the CSV: the top 3 by close, one with a split, one delisted', async () => {
    const { stdout, stderr } = await cli(['--market', 'KR', '--from', '2023-12', '--to', '2024-02', '--top', '3', '--sort', 'currentPrice:desc', '--csv', csv], data);
    // On 2023-12-29 the closes are B 50,000, D 40,000, C 20,000, A 10,000 (E has none yet): the
    // picks are B (+32 %), D (-5 %) and C (-25 %, delisted, at its last close).
    // Mean (32 - 5 - 25) / 3 = 0.667 %; market (20 + 32 - 25 - 5) / 4 = 5.5 %; excess -4.833;
    // one pick (B) above 5.5: 33.3 %.
    assert.equal(
      stdout,
      [
        'Backtest KR: top 3 of the screen (no filters) sorted by currentPrice:desc (screen_stocks), bands mega,xlarge,large,mid,small, rebalanced every month 2023-12..2024-02, each held 12 months, against the equal-weight mean of every KR stock with a close on the rebalance day',
        'left out 2023-12: no session on or before the period start (the first session is 2023-12-28)',
        'left out 2024-02: the holding is not over by the last session (2025-01-02)',
        HEADER,
        '2023-12-29  2024-12-30      3       +0.67%     33.3%       +5.50%  -4.83 pp              4',
        '',
        "summary: 1 period (1 with picks); mean return +0.67%; mean excess -4.83 pp; hit rate 33.3% (1 of 3 picks beat their period's market mean); periods beating the market 0.0% (0 of 1)",
        `CSV: 3 rows written to ${csv}`,
        '',
      ].join('\n'),
    );
    assert.match(stderr, /^backtest: 1 period in \d+\.\d s \(sessions \d+\.\d s, snapshots \d+\.\d s, picks \d+\.\d s, returns \d+\.\d s\)\n$/);
    assert.equal(
      readFileSync(csv, 'utf8'),
      [
        'date,end_date,code,name,currentPrice,start_close,end_close_date,end_close,return_pct,ended_early',
        // B's name holds a comma and quotes: quoted, its quotes doubled.
        '2023-12-29,2024-12-30,900002,"Beta, ""split""",50000,50000,2024-12-30,33000,32,false',
        '2023-12-29,2024-12-30,900004,Delta,40000,40000,2024-12-30,38000,-5,false',
        '2023-12-29,2024-12-30,900003,Gamma delisted,20000,20000,2024-08-30,15000,-25,true',
        '',
      ].join('\n'),
    );
  });

  it('a screen filter narrows the picks; on the demo universe the results say they mean nothing', async () => {
    const store = await openSqliteStore(join(data, 'service.sqlite'));
    await store.refresh.setMeta('demo_as_of', '2025-01-02');
    await store.close();
    const { stdout } = await cli(['--market', 'KR', '--from', '2024-01', '--to', '2024-01', '--top', '5', '--screen', 'currentPrice:15000:45000', '--sort', 'currentPrice:desc'], data);
    // D (-5 %) and C (-25 %): mean -15; excess -15 - 5.5 = -20.5; no pick above 5.5.
    const lines = stdout.split('\n');
    assert.equal(lines[1], 'NOTE: the store holds the invented demo universe: these results come from invented data and mean nothing about any real stock or market.');
    assert.equal(lines[3], '2023-12-29  2024-12-30      2      -15.00%      0.0%       +5.50%  -20.50 pp              4');
    assert.equal(lines.at(-2), lines[1]);
  });

  it('by V3 score: a market without filings has no ranked stock, so no picks', async () => {
    const { stdout } = await cli(['--market', 'KR', '--from', '2024-01', '--to', '2024-01', '--by', 'score'], data);
    assert.match(stdout, /^Backtest KR: top 20 by V3 score \(get_rankings\), /);
    assert.equal(stdout.split('\n').find((l) => l.startsWith('2023-12-29')), '2023-12-29  2024-12-30      0            -         -       +5.50%       -              4');
    assert.match(stdout, /\nsummary: 1 period \(0 with picks\); mean return -; mean excess -; hit rate - \(0 of 0 picks/);
  });

  const invalid: [string, string[], RegExp][] = [
    ['no market', ['--from', '2024-01'], /^backtest: --market is required\nusage: backtest /],
    ['a month that is not one', ['--market', 'KR', '--from', '2024-13'], /^backtest: --from must be a month YYYY-MM\n/],
    ['--to before --from', ['--market', 'KR', '--from', '2024-03', '--to', '2024-01'], /^backtest: --to is before --from 2024-03\n/],
    ['no picks', ['--market', 'KR', '--from', '2024-01', '--top', '0'], /^backtest: --top must be at least 1\n/],
    ['a band that is none', ['--market', 'KR', '--from', '2024-01', '--bands', 'huge'], /^backtest: --bands must be comma-separated bands from mega, xlarge, large, mid, small\n/],
    ['two ways to pick', ['--market', 'KR', '--from', '2024-01', '--by', 'score', '--screen', 'roe:10:'], /^backtest: --by and --screen\/--sort pick in two ways; give one\n/],
    ['an unknown option', ['--market', 'KR', '--from', '2024-01', '--frm', '2024-01'], /^backtest: Unknown option '--frm'/],
    ['a screen field that is none', ['--market', 'KR', '--from', '2024-01', '--screen', 'roa:10:'], /^backtest: --screen: names an unknown field 'roa'; allowed: /],
    ['a screen bound that is not one', ['--market', 'KR', '--from', '2024-01', '--screen', 'roe:ten:'], /^backtest: --screen has a bound that is not field:min:max/],
    ['a sort by a text field', ['--market', 'KR', '--from', '2024-01', '--sort', 'name'], /^backtest: --sort: names 'name', a text field; allowed: /],
  ];
  for (const [what, args, message] of invalid) {
    it(`exits 2 naming the option: ${what}`, async () => {
      const { code, stderr } = await failure(args, data);
      assert.equal(code, 2);
      assert.match(stderr, message);
    });
  }

  it('--help prints the usage with the exit codes, exit 0', async () => {
    const { stdout } = await cli(['--help'], data);
    assert.match(stdout, /^usage: backtest --market KR\|US --from YYYY-MM /);
    assert.match(stdout, /\nexit codes: 0 done, 2 invalid option, 1 the store cannot answer/);
  });

  it('exits 1 when the store holds no price of the market', async () => {
    const { code, stderr } = await failure(['--market', 'US', '--from', '2024-01'], data);
    assert.equal(code, 1);
    assert.match(stderr, /^backtest: the store holds no US price \(start the service once to load the demo universe, or import history: npm run cli -- import\)\n$/);
  });

  it('exits 1 when no period has its holding over', async () => {
    const { code, stderr } = await failure(['--market', 'KR', '--from', '2024-06'], data);
    assert.equal(code, 1);
    assert.match(stderr, /^backtest: no period of 2024-06\.\.2025-01 can be measured: the KR sessions run 2023-12-28\.\.2025-01-02, and a period needs a session on or before its start and its 12-month holding over\n$/);
  });
});
