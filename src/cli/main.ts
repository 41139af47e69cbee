import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { generateKey, hashKey, newKeyRecord } from '../access/keys.ts';
import { isTier, TIERS } from '../access/tiers.ts';
import { ConfigError, resolveServeConfig } from '../config.ts';
import { startServer } from '../server.ts';
import { openSqlite } from '../store/sqlite/database.ts';
import { SqliteKeyStore } from '../store/sqlite/sqlite-keys.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const dataDirOption = () =>
  new Option('--data-dir <dir>', 'data directory (env DATA_DIR)').env('DATA_DIR').default('./data');

function keyStore(dataDir: string): SqliteKeyStore {
  return new SqliteKeyStore(openSqlite(dataDir));
}

const program = new Command('oddsbase')
  .description('Sports odds, scores and statistics API server')
  .version(pkg.version)
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
  .option('--key-header <name>', 'header that carries the API key (env KEY_HEADER)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (env LOG_LEVEL)')
  .action(async (opts) => {
    const config = resolveServeConfig({
      port: opts.port,
      host: opts.host,
      dataDir: opts.dataDir,
      simulator: opts.simulator,
      seed: opts.seed,
      speed: opts.speed,
      keyHeader: opts.keyHeader,
      logLevel: opts.logLevel,
    });
    const server = await startServer(config);
    const stop = async (signal: string) => {
      process.stdout.write(`received ${signal}, closing\n`);
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
  });

const keys = program.command('keys').description('manage API keys (stored hashed, never in clear)');

keys
  .command('create')
  .description('create a key and print it alone on stdout')
  .requiredOption('--tier <tier>', `one of ${TIERS.join(', ')}`, (v: string) => {
    const t = v.toLowerCase();
    if (!isTier(t)) throw new InvalidArgumentError(`expected one of ${TIERS.join(', ')}`);
    return t;
  })
  .option('--label <label>', 'a note to recognise the key by', '')
  .addOption(dataDirOption())
  .action((opts) => {
    const store = keyStore(opts.dataDir);
    const key = generateKey();
    store.insert(newKeyRecord(key, opts.tier, { label: opts.label }));
    process.stdout.write(`${key}\n`);
  });

keys
  .command('list')
  .description('list keys by prefix (the keys themselves are not stored)')
  .addOption(dataDirOption())
  .action((opts) => {
    const rows = keyStore(opts.dataDir).list();
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
  .action((key: string, opts) => {
    const store = keyStore(opts.dataDir);
    const prefix = key.replace(/…$/, '');
    const exact = store.revoke({ hash: hashKey(key) }, new Date().toISOString());
    const matches = exact > 0 ? [] : store.list().filter((r) => r.key_prefix === prefix && !r.revoked_at);
    if (exact === 0 && matches.length > 1) {
      process.stderr.write(`${matches.length} active keys share the prefix ${prefix}; give the full key\n`);
      process.exitCode = 1;
      return;
    }
    const n =
      exact > 0 ? exact : matches.length === 1 ? store.revoke({ prefix }, new Date().toISOString()) : 0;
    if (n === 0) {
      process.stderr.write('no active key matches\n');
      process.exitCode = 1;
      return;
    }
    process.stdout.write('revoked\n');
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`oddsbase: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
