#!/usr/bin/env node
// The command line: serve, keys, refresh, backfill. `npm start` runs `serve`;
// `npm run cli -- <command>` runs the others.

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { seoulDay, systemClock } from '../kernel/clock.js';
import type { App } from '../app.js';
import { createKey, createRefresher, openStore, openUsageCounter, progressBoard, VERSION } from '../compose.js';
import { ConfigError, loadConfig } from '../config.js';
import { BULK_SOURCES, bulkPlan, folderContents } from '../refresh/bulk-sources.js';
import { bulkFirstStart } from '../refresh/first-start.js';
import { Importer } from '../refresh/import.js';
import { readProgress } from '../refresh/progress.js';
import { setHeapGrowth } from '../runtime/heap.js';
import { configuredSources, sourceNotices } from '../sources/index.js';
import { backupSqlite, restoreSqlite } from '../store/backup.js';
import type { Plan } from '../store/access-store.js';
import pino from 'pino';
import { doorsBanner, keyBanner, listenFailureHint, NO_KEY_BANNER, signInBanner } from './banner.js';
import { printable } from './printable.js';
import { followProgress } from './progress.js';
import { formatProgress, formatSourceRuns, formatTerms, seoulTime } from './sources.js';

const USAGE = `usage:
  serve                                   start the service (npm start)
  keys create --plan free|paid [--name N]  create a key; prints it once, alone on the last line
  keys list                               prefix, plan, name, created, last used, calls today
  keys revoke <prefix>                    revoke a key (takes effect on its next request)
  keys plan <prefix> free|paid            change a key's plan
  refresh                                 run one refresh now (ingest, publish a dataset version)
  import [--from DIR]                     load history from the official bulk files: DART's quarterly ZIPs and SEC's
                                          companyfacts.zip / submissions.zip found in DIR, or downloaded into BULK_DIR;
                                          then the configured API sources (placement, knowledge dates, prices)
  backfill --from YYYY-MM-DD --to YYYY-MM-DD [--api]
                                          load history: statements from the bulk files (downloaded), the other
                                          sources from their APIs over the range; --api: every source from its API
  sources [--runs N]                      progress per source, then what the latest N runs took and skipped (default 5)
  backup <file>                           a consistent copy of the SQLite store, safe while serving
  backtest --market KR|US --from YYYY-MM [--to YYYY-MM] [--rebalance month|quarter] [--top N]
           [--by score | --screen FILTERS [--sort FIELD[:asc|desc]]] [--bands B,...] [--hold MONTHS] [--csv FILE]
                                          top N by V3 score or by a screen as of each rebalance day, held MONTHS
                                          (default 12), against the market's equal-weight mean (backtest --help)
  restore <file> [--force]                replace the SQLite store with a backup (a running service picks it up); keys
                                          revoked since the backup stay revoked (--force: replace a store that cannot be read)
  version`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const isPlan = (p: unknown): p is Plan => p === 'free' || p === 'paid';

/** A stop (SIGTERM, SIGINT) ends the process within this, whatever it was doing. */
const STOP_DEADLINE_MS = 9_500;

async function serve(): Promise<void> {
  const config = loadConfig();
  setHeapGrowth(config.HEAP_GROWTH_PERCENT);
  const sources = configuredSources(process.env);
  // Signals are handled from the first moment, start-up included (migrations, connecting,
  // loading): a graceful close when there is an app to close, and an exit at the deadline
  // in any case. A second signal exits at once.
  let app: App | null = null;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      process.stdout.write(`${signal} again: exiting now\n`);
      process.exit(130);
    }
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    setTimeout(() => {
      process.stderr.write(`shutdown took over ${STOP_DEADLINE_MS} ms; exiting\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    app?.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  let createdKey: string | null = null;
  try {
    // The serving process's code is loaded only to serve: the other commands write, or read the store.
    const { startApp } = await import('../app.js');
    app = await startApp(config, {
      sources,
      ...(sources.length > 0 && config.BULK_ON_FIRST_START === 'on'
        ? { bulk: bulkPlan({ dir: bulkDir(config), download: true, asOf: seoulDay(systemClock()), sources, env: process.env }) }
        : {}),
      // The key goes to the terminal's stream, stderr; stdout carries the JSON log lines, which
      // are collected and kept.
      onDemoKey: (key) => {
        createdKey = key;
        process.stderr.write(keyBanner(key));
      },
      onNoKey: () => process.stderr.write(NO_KEY_BANNER),
    });
  } catch (err) {
    if (stopping) process.exit(0);
    const hint = listenFailureHint(err, config.HOST, config.PORT);
    if (hint === null) throw err;
    process.stderr.write(`${hint}\n`);
    process.exit(1);
  }
  const started = app;
  if (stopping) {
    // The signal came while starting: close what was opened.
    started.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    return;
  }
  process.stdout.write(doorsBanner({ url: started.url }));
  const signIn = signInBanner({ url: started.url, host: config.HOST, demo: sources.length === 0, createdKey });
  if (signIn !== null) process.stderr.write(signIn);
  process.stdout.write(sources.length ? `Sources: ${sources.map((s) => s.name).join(', ')}\n` : 'Source: embedded demo universe (no keys, no network)\n');
  process.stdout.write(formatTerms(sources.map((s) => s.name), sourceNotices(process.env)));
  started.ready.then(
    () => process.stdout.write(`Ready: data served (GET ${started.url}/readyz)\n`),
    (err: unknown) => {
      if (stopping) return; // start-up stopped by the shutdown, which exits
      process.stderr.write(`start-up failed: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}

async function keys(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const config = loadConfig();
  const store = await openStore(config);
  try {
    switch (sub) {
      case 'create': {
        const { values } = parseArgs({ args: rest, options: { plan: { type: 'string', default: 'free' }, name: { type: 'string', default: '' } } });
        if (!isPlan(values.plan)) fail('--plan must be free or paid');
        const key = await createKey(store.access, values.plan, values.name ?? '');
        process.stdout.write(`Created a ${values.plan} key. It is shown only now; store it safely:\n${key}\n`);
        break;
      }
      case 'list': {
        const day = seoulDay(systemClock());
        const rows = await store.access.listKeys(day);
        if (config.REDIS_URL) {
          // With Redis the day's counts live there, not in the database.
          const counter = await openUsageCounter(config, store);
          for (const k of rows) k.callsToday = await counter.usage.get(k.id, day);
          await counter.close();
        }
        process.stdout.write('prefix            plan  status   created                   last used                 calls today  name\n');
        for (const k of rows) {
          process.stdout.write(
            `${k.prefix.padEnd(17)} ${k.plan.padEnd(5)} ${(k.revokedAt ? 'revoked' : 'active').padEnd(8)} ${seoulTime(k.createdAt).padEnd(25)} ${(k.lastUsedAt ? seoulTime(k.lastUsedAt) : '-').padEnd(25)} ${String(k.callsToday).padStart(11)}  ${k.name}\n`,
          );
        }
        break;
      }
      case 'revoke': {
        const prefix = rest[0] ?? fail('usage: keys revoke <prefix>');
        if (!(await store.access.revokeKey(prefix, new Date().toISOString()))) fail(`no active key with prefix ${prefix}`);
        process.stdout.write(`revoked ${prefix}\n`);
        break;
      }
      case 'plan': {
        const [prefix, plan] = rest;
        if (prefix === undefined || !isPlan(plan)) fail('usage: keys plan <prefix> free|paid');
        if (!(await store.access.setKeyPlan(prefix, plan))) fail(`no key with prefix ${prefix}`);
        process.stdout.write(`${prefix} is now on the ${plan} plan\n`);
        break;
      }
      default:
        fail(USAGE);
    }
  } finally {
    await store.close();
  }
}

function bulkDir(config: ReturnType<typeof loadConfig>): string {
  return resolve(config.BULK_DIR ?? join(config.DATA_DIR, 'bulk'));
}

/**
 * `import [--from DIR]`: the bulk files (read from DIR, or downloaded into BULK_DIR) beside the
 * API sources that need no placement from them, then every configured API source, as a first
 * start does (src/refresh/first-start.ts). A service running beside it on the same store picks
 * up each version it publishes.
 */
async function importBulk(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } } });
  const config = loadConfig();
  const sources = configuredSources(process.env);
  const dir = values.from === undefined ? bulkDir(config) : resolve(values.from);
  const plan = bulkPlan({ dir, download: values.from === undefined, asOf: seoulDay(systemClock()), sources, env: process.env });
  if (values.from !== undefined) for (const { name, reason } of folderContents(dir).others) process.stderr.write(`import: ${printable(name)}: ${reason}\n`);
  if (plan.inputs.length === 0) {
    fail(
      values.from === undefined
        ? 'import: nothing to download (SEC needs SEC_USER_AGENT; DART needs nothing)'
        : `import: no bulk file in ${dir} (DART's YYYY_nQ_XX_YYYYMMDDhhmmss.zip, companyfacts.zip)`,
    );
  }
  const store = await openStore(config);
  const logger = pino({ level: config.LOG_LEVEL }, pino.destination(2));
  const { board } = progressBoard(store, systemClock);
  const stop = followProgress(board);
  try {
    // Writes only: a service on the same store serves each version it publishes.
    const refresher = createRefresher({ store, sources, clock: systemClock, logger, options: { progress: board } });
    const importer = new Importer(store, systemClock, logger, board, { publishEverySeconds: config.BULK_PUBLISH_SECONDS });
    const report = await bulkFirstStart({ store, refresher, importer, plan, sources, logger });
    stop();
    process.stdout.write(`\nimport ${report.imported.status}: ${report.imported.batches} batches, ${report.imported.versions.length} dataset versions published\n`);
    process.stdout.write(formatSourceRuns(await store.refresh.refreshRuns(report.after ? 2 : 1)));
    for (const [source, cursor] of Object.entries(report.cursors)) process.stdout.write(`cursor:${source} set to ${cursor}\n`);
    if (report.imported.status !== 'ok' || report.after?.sources.some((s) => !s.ok)) process.exitCode = 1;
  } finally {
    stop();
    board.flush();
    await store.close();
  }
}

/** `backfill` by default: the statements from the bulk files, every other source from its API over the range. */
async function backfillBulk(range: { from: string; to: string }): Promise<void> {
  const config = loadConfig();
  const sources = configuredSources(process.env);
  const plan = bulkPlan({
    dir: bulkDir(config),
    download: true,
    asOf: seoulDay(systemClock()),
    sources,
    env: process.env,
    fromYear: Math.max(2015, Number(range.from.slice(0, 4))),
    toYear: Number(range.to.slice(0, 4)),
  });
  const store = await openStore(config);
  const logger = pino({ level: config.LOG_LEVEL }, pino.destination(2));
  const { board } = progressBoard(store, systemClock);
  const stop = followProgress(board);
  try {
    const imported = await new Importer(store, systemClock, logger, board, { publishEverySeconds: config.BULK_PUBLISH_SECONDS }).run(plan.inputs);
    await plan.setCursors(store.refresh, imported.sources);
    const others = sources.filter((s) => !BULK_SOURCES.has(s.name));
    const report =
      others.length > 0
        ? await createRefresher({ store, sources: others, clock: systemClock, logger, options: { range, progress: board } }).run()
        : null;
    stop();
    process.stdout.write(formatSourceRuns(await store.refresh.refreshRuns(report ? 2 : 1)));
    if (imported.status !== 'ok' || report?.sources.some((s) => !s.ok)) process.exitCode = 1;
  } finally {
    stop();
    board.flush();
    await store.close();
  }
}

async function refresh(range?: { from: string; to: string }): Promise<void> {
  const config = loadConfig();
  const store = await openStore(config);
  const sources = configuredSources(process.env);
  const logger = pino({ level: config.LOG_LEVEL });
  try {
    // Writes and publishes a version only: a service on the same store serves it.
    const refresher = createRefresher({ store, sources, clock: systemClock, logger, options: range ? { range } : {} });
    const report = await refresher.run();
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (report.sources.some((s) => !s.ok)) process.exitCode = 1;
  } finally {
    await store.close();
  }
}

/** `backtest`: exit 2 for an invalid option, 1 when the store cannot answer (src/cli/backtest.ts). */
async function runBacktestCommand(args: string[]): Promise<void> {
  // Loaded here, not at the top: the backtest computes snapshots (src/serving), which the other
  // commands never load (test/cli/imports.test.ts).
  const { backtest, BACKTEST_USAGE, BacktestDataError, BacktestUsageError, parseBacktestOptions } = await import('./backtest.js');
  if (args.includes('--help')) {
    process.stdout.write(`${BACKTEST_USAGE}\n`);
    return;
  }
  let options;
  try {
    options = parseBacktestOptions(args);
  } catch (err) {
    if (err instanceof BacktestUsageError) fail(`backtest: ${err.message}\n${BACKTEST_USAGE}`);
    throw err;
  }
  const store = await openStore(loadConfig());
  try {
    const demo = (await store.refresh.getMeta('demo_as_of')) !== null;
    await backtest(store.market, demo, options, (t) => process.stdout.write(t), (t) => process.stderr.write(t));
  } catch (err) {
    if (err instanceof BacktestUsageError) {
      process.stderr.write(`backtest: ${err.message}\n`);
      process.exitCode = 2;
    } else if (err instanceof BacktestDataError) {
      process.stderr.write(`backtest: ${err.message}\n`);
      process.exitCode = 1;
    } else throw err;
  } finally {
    await store.close();
  }
}

// Every file and folder this process creates (the store, its logs, backups, downloaded bulk
// files) is its owner's alone: 0600 and 0700.
process.umask(0o077);

const [command, ...rest] = process.argv.slice(2);
try {
  await runCommand();
} catch (err) {
  // A configuration the process cannot run with: one line, no stack.
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

async function runCommand(): Promise<void> {
  switch (command) {
    case 'serve':
      await serve();
      break;
    case 'keys':
      await keys(rest);
      break;
    case 'refresh':
      await refresh();
      break;
    case 'import':
      await importBulk(rest);
      break;
    case 'backfill': {
      const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' }, api: { type: 'boolean', default: false } } });
      const date = /^\d{4}-\d{2}-\d{2}$/;
      if (!values.from || !values.to || !date.test(values.from) || !date.test(values.to) || values.from > values.to) {
        fail('usage: backfill --from YYYY-MM-DD --to YYYY-MM-DD [--api] (from <= to)');
      }
      // The API path (every source, statements included, from its API over the range) stays for
      // a short range, or where the bulk files cannot be had.
      if (values.api || configuredSources(process.env).length === 0) await refresh({ from: values.from, to: values.to });
      else await backfillBulk({ from: values.from, to: values.to });
      break;
    }
    case 'sources': {
      const { values } = parseArgs({ args: rest, options: { runs: { type: 'string', default: '5' } } });
      const runs = Number(values.runs);
      if (!Number.isInteger(runs) || runs < 1 || runs > 1000) fail('usage: sources [--runs N] (1..1000)');
      const store = await openStore(loadConfig());
      try {
        process.stdout.write(formatTerms(configuredSources(process.env).map((s) => s.name), sourceNotices(process.env)));
        process.stdout.write(formatProgress(readProgress(await store.refresh.getMeta('progress'))));
        process.stdout.write(formatSourceRuns(await store.refresh.refreshRuns(runs)));
      } finally {
        await store.close();
      }
      break;
    }
    case 'backup':
    case 'restore': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { force: { type: 'boolean', default: false } } });
      const file = positionals[0] ?? fail(`usage: ${command} <file>${command === 'restore' ? ' [--force]' : ''}`);
      const config = loadConfig();
      if (config.DATABASE_URL) fail(`${command}: the store is PostgreSQL; use pg_dump / pg_restore (docs/deploy.md)`);
      const storeFile = join(config.DATA_DIR, 'service.sqlite');
      try {
        const summary = command === 'backup' ? await backupSqlite(storeFile, resolve(file)) : await restoreSqlite(storeFile, resolve(file), { force: values.force === true });
        process.stdout.write(`${command === 'backup' ? 'backed up to' : 'restored from'} ${summary.file}: ${JSON.stringify(summary)}\n`);
      } catch (err) {
        process.stderr.write(`${command} failed: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
      break;
    }
    case 'backtest':
      await runBacktestCommand(rest);
      break;
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      break;
    default:
      fail(USAGE);
  }
}
