import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { creditKey, overageKey, usedKey } from '../access/access-control.ts';
import { accountOf } from '../access/authenticator.ts';
import { generateKey, hashKey, newKeyRecord } from '../access/keys.ts';
import { generateAdminToken, newAdminTokenRecord } from '../access/admin-tokens.ts';
import { isTier, TIERS, tierLabel } from '../catalog/tiers.ts';
import { usagePlan } from '../access/usage.ts';
import { ConfigError, parseReplaySpeed, resolveDatabaseUrl, resolveServeConfig } from '../config.ts';
import { RecordingError } from '../changelog/recording.ts';
import { recordLog, replayIntoStore } from './recording.ts';
import { backupStore } from '../ops/backup.ts';
import { StartError } from '../ops/preflight.ts';
import { exitOnSignals } from '../ops/shutdown.ts';
import { packageVersion } from '../ops/version.ts';
import { type RunningServer, StartStopped, startServer } from '../server.ts';
import { DEMO_KEY_CLEAR_META } from '../store/keys.ts';
import { type AccountBackends, migrateStore, openAccounts, type StoreTarget } from '../compose.ts';
import { DataDirInUseError } from '../store/data-dir-lock.ts';
import { DatabaseUnusableError } from '../store/postgres/backends.ts';
import { STORE_FILE } from '../store/sqlite/database.ts';

const dataDirOption = () => new Option('--data-dir <dir>', 'data directory').env('DATA_DIR').default('./data');

const databaseUrlOption = () =>
  new Option('--database-url <url>', 'a PostgreSQL store, postgres://…, instead of --data-dir').env('DATABASE_URL');

/** A number given on the command line, or undefined; the configuration checks its range. */
const optionalNumber = (raw: string | undefined) => (raw === undefined ? undefined : Number(raw));

/** The store a command names with --data-dir and --database-url, the URL checked as `serve` checks it. */
const targetOf = (opts: { dataDir: string; databaseUrl?: string }): StoreTarget => ({
  dataDir: opts.dataDir,
  databaseUrl: resolveDatabaseUrl(opts.databaseUrl),
});

/** Runs `use` with the accounts of the command's store, closed after. */
async function withAccounts<T>(
  opts: { dataDir: string; databaseUrl?: string },
  use: (a: AccountBackends) => Promise<T>,
  create?: boolean,
): Promise<T> {
  const accounts = await openAccounts(targetOf(opts), create === undefined ? {} : { create });
  try {
    return await use(accounts);
  } finally {
    await accounts.close();
  }
}

const program = new Command('oddsbase')
  .description('Sports odds, scores and statistics API server')
  .version(packageVersion())
  // A mistyped command or option is one line and exit status 2, as every refusal of a start is;
  // the whole help after it pushed the error off a terminal's screen.
  .configureOutput({
    outputError: (text, write) =>
      write(
        `oddsbase: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')}; --help lists the options\n`,
      ),
  })
  .exitOverride();

program
  .command('serve')
  .description('run the API server (with the live simulator unless --feed ingest|replay or --no-simulator)')
  .option('--port <port>', 'port to listen on (env PORT)', process.env.PORT ?? '8080')
  .option('--host <host>', 'address to listen on (env HOST)', process.env.HOST ?? '0.0.0.0')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .option(
    '--feed <feed>',
    'what feeds the data: simulator (default), ingest (POST /admin/v1/ingest), replay (--replay-file) or upstream (--upstream-url) (env FEED)',
  )
  .option('--no-simulator', 'serve stored data only, without the live simulator')
  .option('--replay-file <file>', 'with --feed replay: the recording to replay (env REPLAY_FILE)')
  .option('--upstream-url <url>', 'with --feed upstream: the server to mirror (env UPSTREAM_URL)')
  .option(
    '--upstream-key-file <file>',
    'with --feed upstream: a file holding the upstream API key (env UPSTREAM_KEY_FILE; or the key in UPSTREAM_KEY)',
  )
  .option('--upstream-key <key>', 'refused: a key on the command line is readable by every user of the host')
  .option(
    '--upstream-budget <points>',
    'with --feed upstream: data points to spend upstream per UTC day, 0 for no budget of its own (env UPSTREAM_BUDGET)',
  )
  .option(
    '--upstream-poll-ms <ms>',
    'with --feed upstream: how often the deltas are polled (env UPSTREAM_POLL_MS; default 2000)',
  )
  .option(
    '--upstream-catalog-ms <ms>',
    "with --feed upstream: how often the upstream's catalog is read again (env UPSTREAM_CATALOG_MS; default 300000)",
  )
  .option(
    '--upstream-season-ms <ms>',
    'with --feed upstream: how often a team whose game changed has its season read again (env UPSTREAM_SEASON_MS; default 60000)',
  )
  .option(
    '--upstream-mode <mode>',
    "with --feed upstream: auto (default: the upstream's stream where its plan allows it, else polls), stream or poll (env UPSTREAM_MODE)",
  )
  .option('--seed <n>', 'simulator seed (env SIM_SEED)')
  .option(
    '--speed <x>',
    'run live game clocks x times faster (env SIM_SPEED); with --feed replay, the recorded timing x times faster (0 or max: no waits)',
  )
  .option('--sports <ids>', 'simulate only these sport ids, comma-separated (env SIM_SPORTS); every sport by default')
  .option('--key-header <name>', 'header that carries the API key (env KEY_HEADER)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (env LOG_LEVEL)')
  .option('--cache-mb <n>', 'memory all response caches together may use, in MB (env CACHE_MB; default 32)')
  .option(
    '--send-timeout <seconds>',
    'close a connection whose response sits unread this long (env SEND_TIMEOUT_MS, in ms; default 30)',
  )
  .option(
    '--send-budget-mb <n>',
    'unsent response bytes all connections may hold, in MB; stalled ones go first (env SEND_BUDGET_MB; default 32)',
  )
  .option(
    '--retention-days <n>',
    'days of the change log kept whole; older rows are compacted, openers, closing, finals and box scores kept (env RETENTION_DAYS; default 1; 0 keeps everything)',
  )
  .option(
    '--board-keep-hours <n>',
    'hours a finished event stays in memory after its last change; then it is read from the store (env BOARD_KEEP_HOURS; default 36)',
  )
  .option('--log-pretty', 'log lines for a terminal instead of JSON')
  .option('--access-log', 'log a line per request (by default a summary line per minute)')
  .option('--metrics-host <host>', 'address of the /metrics listener (env METRICS_HOST)')
  .option('--metrics-port <port>', 'port of the /metrics listener, off unless given (env METRICS_PORT; 9464 is usual)')
  .option(
    '--trust-proxy <list>',
    'comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client (env TRUST_PROXY)',
  )
  .option(
    '--cors-origins <list>',
    'comma-separated origins browsers may call the REST routes from, or * (env CORS_ORIGINS)',
  )
  .option(
    '--redis-url <url>',
    'redis:// URL: the bus and shared counters between nodes (env REDIS_URL); none: in-process',
  )
  .option(
    '--role <role>',
    'all (one process), writer (the ledger and the feed, or their standby) or api (follows the writer); writer and api need --database-url and --redis-url (env ROLE; default all)',
  )
  .addHelpText(
    'after',
    '\nMetrics: /metrics on 127.0.0.1:<--metrics-port> when given. Set METRICS_TOKEN (16+ characters) to require\n' +
      "'Authorization: Bearer <token>', to serve /metrics on the API port too, and to allow a\n" +
      'non-loopback --metrics-host. SIGTERM or SIGINT closes gracefully; a second one (0.5 s or more later) exits at once.',
  )
  .action(async (opts) => {
    if (opts.upstreamKey !== undefined) {
      throw new ConfigError(
        '--upstream-key is refused: any user of this host can read a command line; use --upstream-key-file FILE or UPSTREAM_KEY',
      );
    }
    const config = resolveServeConfig({
      port: opts.port,
      host: opts.host,
      dataDir: opts.dataDir,
      databaseUrl: opts.databaseUrl,
      feed: opts.feed,
      simulator: opts.simulator,
      replayFile: opts.replayFile,
      upstreamUrl: opts.upstreamUrl,
      upstreamKeyFile: opts.upstreamKeyFile,
      upstreamBudget: opts.upstreamBudget,
      upstreamPollMs: opts.upstreamPollMs,
      upstreamCatalogMs: opts.upstreamCatalogMs,
      upstreamSeasonMs: opts.upstreamSeasonMs,
      upstreamMode: opts.upstreamMode,
      seed: opts.seed,
      speed: opts.speed,
      sports: opts.sports,
      keyHeader: opts.keyHeader,
      logLevel: opts.logLevel,
      logPretty: opts.logPretty === true,
      accessLog: opts.accessLog === true,
      metricsHost: opts.metricsHost,
      metricsPort: opts.metricsPort,
      trustProxy: opts.trustProxy,
      corsOrigins: opts.corsOrigins,
      redisUrl: opts.redisUrl,
      role: opts.role,
      limits: {
        cacheMb: optionalNumber(opts.cacheMb),
        sendTimeoutMs: opts.sendTimeout === undefined ? undefined : Number(opts.sendTimeout) * 1000,
        sendBudgetMb: optionalNumber(opts.sendBudgetMb),
        retentionDays: optionalNumber(opts.retentionDays),
        boardKeepHours: optionalNumber(opts.boardKeepHours),
      },
    });
    // Signals are handled from the first moment: one during the start stops it (the fill between
    // two steps) and closes the store, so that the next start finds no lock or write-ahead log.
    const stop = new AbortController();
    let server: RunningServer | undefined;
    const starting = startServer(config, { signal: stop.signal });
    exitOnSignals(
      async () => {
        stop.abort();
        if (server) return server.close();
        await starting.catch((err: unknown) => {
          if (!(err instanceof StartStopped)) throw err;
        });
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    try {
      server = await starting;
    } catch (err) {
      // The signal handler ends the process once the start has cleaned up.
      if (err instanceof StartStopped) return;
      throw err;
    }
  });

program
  .command('backup')
  .description("copy a store, a running server's too, into one consistent file (SQLite's online backup)")
  .requiredOption('--out <file>', 'the backup file to write (never overwritten)')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .addHelpText(
    'after',
    '\nRestore: put the file in an empty data directory as oddsbase.db and run\n' +
      '`oddsbase serve --data-dir DIR`: ids continue from the copy, under a new log epoch.',
  )
  .action(async (opts) => {
    if (targetOf(opts).databaseUrl !== undefined) {
      // PostgreSQL's own tool copies a live database consistently; oddsbase adds nothing to it.
      process.stderr.write(
        'oddsbase: a PostgreSQL store is backed up with pg_dump, not oddsbase backup: ' +
          'pg_dump --format=custom --file=oddsbase.dump "$DATABASE_URL" (docs/deploy.md)\n',
      );
      process.exitCode = 1;
      return;
    }
    try {
      const r = await backupStore(opts.dataDir, STORE_FILE, opts.out);
      process.stdout.write(
        `backup written to ${r.file}: ${r.bytes} bytes, change log up to id ${r.headId} (epoch ${r.epoch ?? 'none'})\n`,
      );
    } catch (err) {
      process.stderr.write(`oddsbase: backup failed: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('record')
  .description("write the change log, a running server's too, to a file (NDJSON, gzip if it ends in .gz)")
  .requiredOption('--out <file>', 'the recording to write (never overwritten)')
  .option('--from <id>', 'record only the changes after this id (0: the whole log)', '0')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (opts) => {
    const from = Number(opts.from);
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new StartError(`--from must be a change id (a whole number from 0), got '${opts.from}'`);
    }
    const r = await recordLog(targetOf(opts), opts.out, from);
    process.stdout.write(
      `recorded ${r.rows} changes${r.batches > 0 ? ` and ${r.batches} named batches` : ''} (after ${r.header.from_id}, up to ${r.header.head_id}, epoch ${r.header.epoch}) to ${opts.out}: ${r.bytes} bytes\n`,
    );
  });

program
  .command('replay <file>')
  .description('feed a recording back through the ledger into an empty store, with its timing scaled')
  .option('--speed <x>', 'the recorded timing x times faster; 0 or max: as fast as the store commits', 'max')
  .option('--append', 'go on with a store that holds the same log (its epoch) already, above its head')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (file: string, opts) => {
    const config = resolveServeConfig({
      dataDir: opts.dataDir,
      databaseUrl: opts.databaseUrl,
      simulator: false,
      logLevel: 'silent',
    });
    const say = (line: string) => process.stderr.write(`oddsbase: ${line}\n`);
    const stop = new AbortController();
    let replaying: Promise<unknown> = Promise.resolve();
    exitOnSignals(async () => {
      stop.abort();
      await replaying.catch(() => undefined);
    }, say);
    const run = replayIntoStore(config, file, {
      speed: parseReplaySpeed(opts.speed),
      append: opts.append === true,
      signal: stop.signal,
      say,
    });
    replaying = run;
    const r = await run;
    process.stdout.write(
      `${r.complete ? 'replayed' : 'stopped after'} ${r.rows} changes from ${file}${r.skipped > 0 ? ` (${r.skipped} already in the store)` : ''}: the log's head is ${r.headId}\n`,
    );
  });

program
  .command('migrate')
  .description("bring the store's schema to this version and exit (serve does it at start too)")
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (opts) => {
    process.stdout.write(`${await migrateStore(targetOf(opts))}\n`);
  });

const keys = program.command('keys').description('manage API keys (stored hashed, never in clear)');

keys
  .command('create')
  .description('create a key (one key is one account) and print it alone on stdout')
  .requiredOption('--tier <tier>', `one of ${TIERS.join(', ')}`, (v: string) => {
    const t = v.toLowerCase();
    if (!isTier(t)) throw new InvalidArgumentError(`expected one of ${TIERS.join(', ')}`);
    return t;
  })
  .option('--label <label>', 'a note to recognise the key by', '')
  .option('--billing <period>', 'monthly or weekly', (v: string) => {
    if (v !== 'monthly' && v !== 'weekly') throw new InvalidArgumentError('expected monthly or weekly');
    return v;
  })
  .option('--created-at <time>', 'account creation time, ISO 8601 (decides the stats policy)', (v: string) => {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) throw new InvalidArgumentError('expected an ISO 8601 time');
    return new Date(ms);
  })
  .option('--budget-cap <usd>', 'hard cap on overage spend per period, in US dollars', (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number');
    return n;
  })
  .option('--v1', 'the account also has a V1 subscription')
  .option('--no-v2', 'the account has no V2 subscription (V1 only)')
  .option('--credits <points>', 'bonus credit points', (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
    return n;
  })
  .option('--credits-expiry <time>', 'when the bonus credits expire, ISO 8601', (v: string) => {
    if (Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('expected an ISO 8601 time');
    return new Date(v).toISOString();
  })
  .option('--expires-at <time>', 'when the key stops working, ISO 8601', (v: string) => {
    if (Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('expected an ISO 8601 time');
    return new Date(v).toISOString();
  })
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .option('--new-store', 'make a store in --data-dir if it has none (else a mistyped directory is refused)')
  .action(async (opts) => {
    if (opts.v2 === false && !opts.v1) {
      process.stderr.write('oddsbase: an account needs a V1 or a V2 subscription (--v1 with --no-v2)\n');
      process.exitCode = 2;
      return;
    }
    const key = generateKey();
    const record = newKeyRecord(key, opts.tier, {
      label: opts.label,
      billing: opts.billing,
      createdAt: opts.createdAt,
      budgetCapUsd: opts.budgetCap,
      v1: opts.v1 === true,
      v2: opts.v2 !== false,
      credits: opts.credits,
      creditsExpiry: opts.creditsExpiry,
      expiresAt: opts.expiresAt,
    });
    await withAccounts(opts, (a) => a.keys.insert(record), opts.newStore === true);
    process.stdout.write(`${key}\n`);
  });

keys
  .command('show <key>')
  .description('print the account behind a key and its usage in the current period')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (key: string, opts) => {
    const now = Date.now();
    const { record, saved } = await withAccounts(opts, async (a) => ({
      record: await a.keys.findByHash(hashKey(key)),
      saved: await a.counterStore.read('', now),
    }));
    if (!record) {
      process.stderr.write('no such key\n');
      process.exitCode = 1;
      return;
    }
    const account = accountOf(record);
    const plan = usagePlan(account, now);
    const values = new Map(saved.map((e) => [e.key, e.value]));
    const value = (k: string) => values.get(k) ?? 0;
    const used = value(usedKey(account, plan.primary.id));
    const lines: [string, string][] = [
      ['key', `${record.key_prefix}…`],
      ['label', record.label],
      ['tier', tierLabel(record.tier)],
      ['state', record.revoked_at ? `revoked ${record.revoked_at}` : 'active'],
      ['created', record.created_at],
      ['stats policy', account.newStatsPolicy ? 'new' : 'legacy'],
      ['subscriptions', [record.v1 ? 'V1' : '', record.v2 ? 'V2' : ''].filter(Boolean).join(', ')],
      ['billing', record.billing],
      ['budget cap', record.budget_cap_usd === null ? 'none' : `$${record.budget_cap_usd}`],
      ['period', `${plan.primary.name} ${plan.primary.id} (resets ${new Date(plan.primary.endMs).toISOString()})`],
      ['used', `${used} of ${plan.included} included`],
    ];
    if (plan.monthly) {
      lines.push(['month', `${value(usedKey(account, plan.monthly.window.id))} of ${plan.monthly.cap}`]);
    }
    if (record.credits > 0) {
      lines.push(['credits', `${Math.max(0, record.credits - value(creditKey(account)))} left of ${record.credits}`]);
    }
    if (record.tier !== 'free') lines.push(['overage', `${value(overageKey(account, plan.primary.id))} points`]);
    for (const [k, v] of lines) process.stdout.write(`${k.padEnd(14)} ${v}\n`);
  });

keys
  .command('demo')
  .description('print the demo key the first start of --data-dir made, unless it was revoked')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (opts) => {
    const { demoKey, record } = await withAccounts(opts, async (a) => {
      const clear = await a.getMeta(DEMO_KEY_CLEAR_META);
      return { demoKey: clear, record: clear === undefined ? undefined : await a.keys.findByHash(hashKey(clear)) };
    });
    if (demoKey === undefined || !record || record.revoked_at) {
      process.stderr.write(
        `oddsbase: no demo key in ${opts.databaseUrl ? 'the database' : opts.dataDir} (made only by the first start of an empty store, or revoked): ` +
          'make one with oddsbase keys create --tier ultra --v1\n',
      );
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${demoKey}\n`);
  });

keys
  .command('list')
  .description('list keys by prefix (the keys themselves are not stored)')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (opts) => {
    const rows = await withAccounts(opts, (a) => a.keys.list());
    if (rows.length === 0) {
      process.stdout.write('no keys\n');
      return;
    }
    for (const r of rows) {
      const state = r.revoked_at ? `revoked ${r.revoked_at}` : 'active';
      process.stdout.write(`${r.key_prefix}…  ${r.tier.padEnd(10)} ${r.created_at}  ${state}  ${r.label}\n`);
    }
  });

keys
  .command('revoke <key>')
  .description('revoke a key, given in full or by the prefix that `keys list` shows')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (key: string, opts) => {
    const prefix = key.replace(/…$/, '');
    const outcome = await withAccounts(opts, async ({ keys: store }) => {
      const exact = await store.revoke({ hash: hashKey(key) }, new Date().toISOString());
      if (exact > 0) return 'revoked';
      const matches = await store.activeByPrefix(prefix);
      if (matches.length > 1) return `${matches.length} active keys share the prefix ${prefix}; give the full key`;
      const n = matches.length === 1 ? await store.revoke({ prefix }, new Date().toISOString()) : 0;
      return n > 0 ? 'revoked' : 'no active key matches';
    });
    if (outcome !== 'revoked') {
      process.stderr.write(`${outcome}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write('revoked\n');
  });

const adminTokens = program
  .command('admin-tokens')
  .description('manage admin tokens: they open POST /admin/v1/ingest and are never API keys (stored hashed)');

adminTokens
  .command('create')
  .description("create an admin token and print it alone on stdout (send it as 'Authorization: Bearer <token>')")
  .option('--label <label>', 'a note to recognise the token by', '')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .option('--new-store', 'make a store in --data-dir if it has none (else a mistyped directory is refused)')
  .action(async (opts) => {
    const token = generateAdminToken();
    await withAccounts(
      opts,
      (a) => a.adminTokens.insert(newAdminTokenRecord(token, { label: opts.label })),
      opts.newStore === true,
    );
    process.stdout.write(`${token}\n`);
  });

adminTokens
  .command('list')
  .description('list admin tokens by prefix (the tokens themselves are not stored)')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (opts) => {
    const rows = await withAccounts(opts, (a) => a.adminTokens.list());
    if (rows.length === 0) {
      process.stdout.write('no admin tokens\n');
      return;
    }
    for (const r of rows) {
      const state = r.revoked_at ? `revoked ${r.revoked_at}` : 'active';
      process.stdout.write(`${r.token_prefix}…  ${r.created_at}  ${state}  ${r.label}\n`);
    }
  });

adminTokens
  .command('revoke <token>')
  .description('revoke an admin token, given in full or by the prefix that `admin-tokens list` shows')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (token: string, opts) => {
    const prefix = token.replace(/…$/, '');
    const outcome = await withAccounts(opts, async ({ adminTokens: store }) => {
      const at = new Date().toISOString();
      if ((await store.revoke({ hash: hashKey(token) }, at)) > 0) return 'revoked';
      const matches = await store.activeByPrefix(prefix);
      if (matches.length > 1)
        return `${matches.length} active admin tokens share the prefix ${prefix}; give the full token`;
      const n = matches.length === 1 ? await store.revoke({ prefix }, at) : 0;
      return n > 0 ? 'revoked' : 'no active admin token matches';
    });
    if (outcome !== 'revoked') {
      process.stderr.write(`${outcome}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write('revoked\n');
  });

/** Errors of the file system or SQLite that a person fixes outside oddsbase, not bugs. */
function isEnvironmentError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    /^(EACCES|EPERM|EROFS|ENOSPC|ENOTDIR|EISDIR|SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_FULL|SQLITE_IOERR|SQLITE_NOTADB)/.test(
      code,
    )
  );
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Help and the version exit 0; a parse error has been said (configureOutput above).
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  if (err instanceof ConfigError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof StartError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof RecordingError) {
    // A truncated or corrupt recording: the line that could not be read.
    process.stderr.write(`oddsbase: the recording cannot be replayed: ${err.message}\n`);
    process.exit(2);
  }
  if (isEnvironmentError(err)) {
    // The file system refused (a read-only disk, a directory this user may not write): one line.
    process.stderr.write(`oddsbase: ${(err as Error).message}: check --data-dir and its permissions\n`);
    process.exit(1);
  }
  if (err instanceof DatabaseUnusableError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof DataDirInUseError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
