import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { accountOf } from '../access/authenticator.ts';
import { generateKey, hashKey, newKeyRecord } from '../access/keys.ts';
import { isTier, TIERS, tierLabel } from '../catalog/tiers.ts';
import { usagePlan } from '../access/usage.ts';
import { ConfigError, resolveServeConfig } from '../config.ts';
import { backupStore } from '../ops/backup.ts';
import { checkDataDir, StartError } from '../ops/preflight.ts';
import { exitOnSignals } from '../ops/shutdown.ts';
import { packageVersion } from '../ops/version.ts';
import { DEMO_KEY_CLEAR_META, type RunningServer, StartStopped, startServer } from '../server.ts';
import { DataDirInUseError, lockDataDir } from '../store/data-dir-lock.ts';
import { openSqlite, type SqliteDatabase, STORE_FILE, storeNeedsUpgrade } from '../store/sqlite/database.ts';
import { SqliteCounterStore } from '../store/sqlite/sqlite-counters.ts';
import { SqliteKeyStore } from '../store/sqlite/sqlite-keys.ts';


const dataDirOption = () =>
  new Option('--data-dir <dir>', 'data directory (env DATA_DIR)').env('DATA_DIR').default('./data');

/** A number given on the command line, or undefined; the configuration checks its range. */
const optionalNumber = (raw: string | undefined) => (raw === undefined ? undefined : Number(raw));

/**
 * The key store of `dataDir`. A `keys` command shares the directory with a running server (SQLite
 * serialises their small writes) without its lock, except when the store still has to be upgraded:
 * that rewrite takes the lock, so it never runs beneath a server, which is told to stop first.
 */
function openForKeys(dataDir: string, create?: boolean): SqliteDatabase {
  // A mistyped --data-dir would otherwise get a store of its own: keys listed from nothing, or
  // made where no server looks.
  if (create !== true && !existsSync(join(dataDir, 'oddsbase.db'))) {
    const hint = create === false ? ', or pass --new-store to make one there' : '';
    throw new StartError(`no store in ${dataDir} (no oddsbase.db): check --data-dir (env DATA_DIR)${hint}`);
  }
  checkDataDir(dataDir);
  const lock = storeNeedsUpgrade(dataDir) ? lockDataDir(dataDir, 'oddsbase keys') : undefined;
  try {
    return openSqlite(dataDir);
  } finally {
    lock?.release();
  }
}

function keyStore(dataDir: string, create?: boolean): SqliteKeyStore {
  return new SqliteKeyStore(openForKeys(dataDir, create));
}

const program = new Command('oddsbase')
  .description('Sports odds, scores and statistics API server')
  .version(packageVersion())
  .showHelpAfterError();

program
  .command('serve')
  .description('run the API server (with the live simulator unless --no-simulator)')
  .option('--port <port>', 'port to listen on (env PORT)', process.env.PORT ?? '8080')
  .option('--host <host>', 'address to listen on (env HOST)', process.env.HOST ?? '0.0.0.0')
  .addOption(dataDirOption())
  .option('--no-simulator', 'serve stored data only, without the live simulator')
  .option('--seed <n>', 'simulator seed (env SIM_SEED)')
  .option('--speed <x>', 'run live game clocks x times faster (env SIM_SPEED)')
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
  .option('--cors-origins <list>', 'comma-separated origins browsers may call the REST routes from, or * (env CORS_ORIGINS)')
  .option('--redis-url <url>', 'redis:// URL: the bus and shared counters between nodes (env REDIS_URL); none: in-process')
  .addHelpText(
    'after',
    '\nMetrics: /metrics on 127.0.0.1:<--metrics-port> when given. Set METRICS_TOKEN (16+ characters) to require\n' +
      "'Authorization: Bearer <token>', to serve /metrics on the API port too, and to allow a\n" +
      'non-loopback --metrics-host. SIGTERM or SIGINT closes gracefully; a second one exits at once.',
  )
  .action(async (opts) => {
    const config = resolveServeConfig({
      port: opts.port,
      host: opts.host,
      dataDir: opts.dataDir,
      simulator: opts.simulator,
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
  .addHelpText(
    'after',
    '\nRestore: put the file in an empty data directory as oddsbase.db and run\n' +
      '`oddsbase serve --data-dir DIR`: ids continue from the copy, under a new log epoch.',
  )
  .action(async (opts) => {
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
  .option(
    '--created-at <time>',
    'account creation time, ISO 8601 (decides the stats policy)',
    (v: string) => {
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) throw new InvalidArgumentError('expected an ISO 8601 time');
      return new Date(ms);
    },
  )
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
  .option('--new-store', 'make a store in --data-dir if it has none (else a mistyped directory is refused)')
  .action(async (opts) => {
    if (opts.v2 === false && !opts.v1) {
      process.stderr.write('oddsbase: an account needs a V1 or a V2 subscription (--v1 with --no-v2)\n');
      process.exitCode = 2;
      return;
    }
    const store = keyStore(opts.dataDir, opts.newStore === true);
    const key = generateKey();
    await store.insert(
      newKeyRecord(key, opts.tier, {
        label: opts.label,
        billing: opts.billing,
        createdAt: opts.createdAt,
        budgetCapUsd: opts.budgetCap,
        v1: opts.v1 === true,
        v2: opts.v2 !== false,
        credits: opts.credits,
        creditsExpiry: opts.creditsExpiry,
        expiresAt: opts.expiresAt,
      }),
    );
    process.stdout.write(`${key}\n`);
  });

keys
  .command('show <key>')
  .description('print the account behind a key and its usage in the current period')
  .addOption(dataDirOption())
  .action(async (key: string, opts) => {
    const db = openForKeys(opts.dataDir);
    const record = await new SqliteKeyStore(db).findByHash(hashKey(key));
    if (!record) {
      process.stderr.write('no such key\n');
      process.exitCode = 1;
      return;
    }
    const now = Date.now();
    const account = accountOf(record);
    const plan = usagePlan(account, now);
    const counters = new SqliteCounterStore(db);
    const saved = new Map((await counters.read('', now)).map((e) => [e.key, e.value]));
    const value = (k: string) => saved.get(k) ?? 0;
    const used = value(`use:${record.key_hash}:${plan.primary.id}`);
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
      [
        'period',
        `${plan.primary.name} ${plan.primary.id} (resets ${new Date(plan.primary.endMs).toISOString()})`,
      ],
      ['used', `${used} of ${plan.included} included`],
    ];
    if (plan.monthly) {
      lines.push([
        'month',
        `${value(`use:${record.key_hash}:${plan.monthly.window.id}`)} of ${plan.monthly.cap}`,
      ]);
    }
    if (record.credits > 0) {
      lines.push([
        'credits',
        `${Math.max(0, record.credits - value(`credit:${record.key_hash}`))} left of ${record.credits}`,
      ]);
    }
    if (record.tier !== 'free')
      lines.push(['overage', `${value(`over:${record.key_hash}:${plan.primary.id}`)} points`]);
    for (const [k, v] of lines) process.stdout.write(`${k.padEnd(14)} ${v}\n`);
  });

keys
  .command('demo')
  .description("print the demo key the first start of --data-dir made, unless it was revoked")
  .addOption(dataDirOption())
  .action(async (opts) => {
    const db = openForKeys(opts.dataDir);
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(DEMO_KEY_CLEAR_META) as { value: string } | undefined;
    const record = row && (await new SqliteKeyStore(db).findByHash(hashKey(row.value)));
    if (!record || record.revoked_at) {
      process.stderr.write(
        `oddsbase: no demo key in ${opts.dataDir} (made only by the first start of an empty store, or revoked): ` +
          'make one with oddsbase keys create --tier ultra --v1\n',
      );
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${row.value}\n`);
  });

keys
  .command('list')
  .description('list keys by prefix (the keys themselves are not stored)')
  .addOption(dataDirOption())
  .action(async (opts) => {
    const rows = await keyStore(opts.dataDir).list();
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
  .action(async (key: string, opts) => {
    const store = keyStore(opts.dataDir);
    const prefix = key.replace(/…$/, '');
    const exact = await store.revoke({ hash: hashKey(key) }, new Date().toISOString());
    const matches =
      exact > 0 ? [] : (await store.list()).filter((r) => r.key_prefix === prefix && !r.revoked_at);
    if (exact === 0 && matches.length > 1) {
      process.stderr.write(`${matches.length} active keys share the prefix ${prefix}; give the full key\n`);
      process.exitCode = 1;
      return;
    }
    const n =
      exact > 0 ? exact : matches.length === 1 ? await store.revoke({ prefix }, new Date().toISOString()) : 0;
    if (n === 0) {
      process.stderr.write('no active key matches\n');
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
    /^(EACCES|EPERM|EROFS|ENOSPC|ENOTDIR|EISDIR|SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_FULL|SQLITE_IOERR|SQLITE_NOTADB)/.test(code)
  );
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof StartError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(2);
  }
  if (isEnvironmentError(err)) {
    // The file system refused (a read-only disk, a directory this user may not write): one line.
    process.stderr.write(`oddsbase: ${(err as Error).message}: check --data-dir and its permissions\n`);
    process.exit(1);
  }
  if (err instanceof DataDirInUseError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
