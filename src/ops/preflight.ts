import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ServeConfig } from '../config.ts';

/**
 * A start that cannot go on for a reason the person starting it can fix: its message is one line
 * that names the option to change, and the command exits non-zero without a stack trace.
 */
export class StartError extends Error {}

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/**
 * Listens on `host:port` and closes again at once. Checked before any work so that a taken port
 * is said in the first second, not after the history fill; a port taken in the moment between
 * this check and the real listen still fails the start, later.
 */
export function checkPort(host: string, port: number, option: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => {
      const code = codeOf(err);
      const why =
        code === 'EADDRINUSE'
          ? 'is in use by another program'
          : code === 'EACCES'
            ? 'needs privileges this user lacks'
            : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
              ? 'is not an address of this machine'
              : `cannot be listened on (${code ?? err.message})`;
      reject(new StartError(`${host}:${port} ${why}: choose another with ${option}`));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * The data directory exists as a directory (it is made if missing), and this user may read and
 * write it and the store's files in it.
 */
export function checkDataDir(dir: string, option = '--data-dir'): void {
  let isDir: boolean | undefined;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    if (codeOf(err) !== 'ENOENT')
      throw new StartError(`the data directory ${dir} cannot be read (${codeOf(err)}): choose another with ${option}`);
  }
  if (isDir === false)
    throw new StartError(`the data directory ${dir} is a file, not a directory: choose another with ${option}`);
  if (isDir === undefined) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new StartError(`the data directory ${dir} cannot be made (${codeOf(err)}): choose another with ${option}`);
    }
  }
  for (const path of [dir, join(dir, 'oddsbase.db'), join(dir, 'oddsbase.db-wal')]) {
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch (err) {
      if (codeOf(err) === 'ENOENT') continue;
      throw new StartError(
        `${path} is not writable by this user (${codeOf(err)}): fix its permissions or choose another ${option}`,
      );
    }
  }
}

/**
 * A cluster role needs the cluster's two servers: a writer or an API node on SQLite or the
 * in-process bus would be a second, separate log, never the same one as its peers'.
 */
export function checkRole(config: Pick<ServeConfig, 'role' | 'databaseUrl' | 'redisUrl' | 'feed'>): void {
  if (config.role === 'all') return;
  if (config.role === 'api' && config.feed !== 'simulator') {
    const where = config.feed === 'ingest' ? ' and send ingest requests there' : '';
    throw new StartError(`--role api runs no feed: serve --feed ${config.feed} on the writer (--role writer)${where}`);
  }
  const missing = [
    ...(config.databaseUrl === undefined ? ['--database-url (env DATABASE_URL)'] : []),
    ...(config.redisUrl === undefined ? ['--redis-url (env REDIS_URL)'] : []),
  ];
  if (missing.length > 0) {
    throw new StartError(
      `--role ${config.role} needs a PostgreSQL store and a Redis bus shared with the other nodes: give ${missing.join(' and ')}, or serve with --role all`,
    );
  }
}

/** A file the command reads (a recording to replay) exists and this user may read it. */
export function checkReadableFile(file: string, option: string): void {
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
    accessSync(file, constants.R_OK);
  } catch (err) {
    throw new StartError(`${file} cannot be read (${codeOf(err) ?? String(err)}): check ${option}`);
  }
  if (!isFile) throw new StartError(`${file} is not a file: check ${option}`);
}

/** Every port, path and permission a `serve` needs, checked before it opens the store. */
export async function preflight(config: ServeConfig): Promise<void> {
  checkRole(config);
  if (config.replay) checkReadableFile(config.replay.file, '--replay-file');
  // The ports before the data directory, which is made when missing: a refused start makes nothing.
  await checkPort(config.host, config.port, '--port (env PORT)');
  if (config.metrics.port !== undefined) {
    await checkPort(config.metrics.host, config.metrics.port, '--metrics-port (env METRICS_PORT)');
  }
  // A PostgreSQL store keeps nothing in the data directory.
  if (config.databaseUrl === undefined) checkDataDir(config.dataDir);
}
