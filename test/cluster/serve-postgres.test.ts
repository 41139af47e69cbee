import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';

const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, ['bin/oddsbase.js', ...args], { cwd: process.cwd() });

let service: Promise<PostgresService> | undefined;
const postgres = () => (service ??= startPostgres());
const children: ServedChild[] = [];
after(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  if (service) await (await service).stop();
});

async function serve(url: string): Promise<ServedChild> {
  const served = await serveChild(['--database-url', url, '--sports', '4', '--seed', '5', '--log-level', 'warn']);
  children.push(served);
  return served;
}

async function delta(served: ServedChild, key: string, lastId: number) {
  const r = await fetch(`${served.url}/api/v2/markets/delta?last_id=${lastId}&limit=1000`, {
    headers: { 'X-Service-Key': key },
  });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as {
    deltas: { id: number; price: string }[];
    meta: { delta_last_id: string; epoch: string };
  };
}

async function stop(served: ServedChild): Promise<void> {
  served.child.kill('SIGTERM');
  const exit = await served.exited;
  assert.equal(exit.code, 0, served.output());
}

test('serve --database-url: keys from the CLI, prices over REST, a standby that takes over from the head', async (t) => {
  const url = await (await postgres()).createDatabase();
  // The CLI migrates an empty database itself and writes the key where the servers read it.
  const { stdout } = await cli(
    'keys',
    'create',
    '--tier',
    'ultra',
    '--v1',
    '--label',
    'cluster',
    '--database-url',
    url,
  );
  const key = stdout.trim();
  assert.match(key, /^ob_[0-9a-f]{40}$/);

  const first = await serve(url);
  const page = await delta(first, key, 0);
  assert.ok(page.deltas.length > 0, 'the simulator committed prices');
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  t.after(() => db.end());
  const head = Number((await db.query('SELECT max(id) AS head FROM changes')).rows[0].head);
  assert.ok(head >= Number(page.meta.delta_last_id), 'what it serves is in PostgreSQL');

  // A second server on the same database waits for the writer's lock, then goes on from the head.
  const second = serve(url);
  const waiters = async () =>
    Number(
      (await db.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n,
    );
  for (const began = Date.now(); (await waiters()) === 0;) {
    assert.ok(Date.now() - began < 120_000, 'the second server asks for the lock');
    await new Promise((r) => setTimeout(r, 100));
  }
  const lastSeen = (await delta(first, key, Number(page.meta.delta_last_id))).meta.delta_last_id;
  await stop(first);
  const standby = await second;
  assert.match(standby.output(), /waiting for the writer lock/);
  const resumed = await delta(standby, key, Number(lastSeen) - 1);
  assert.equal(resumed.deltas[0]?.id, Number(lastSeen), 'the rows the first one committed are there, none lost');
  assert.equal(resumed.meta.epoch, page.meta.epoch, 'the same log');

  const listed = await cli('keys', 'list', '--database-url', url);
  assert.ok(listed.stdout.includes(key.slice(0, 10)));
  await stop(standby);
});

test('backup on a PostgreSQL store names pg_dump in one line and fails', async () => {
  const url = (await postgres()).url();
  const failed = await cli('backup', '--out', 'never-written.db', '--database-url', url).then(
    () => assert.fail('backup succeeded'),
    (err: { code: number; stderr: string; stdout: string }) => err,
  );
  assert.equal(failed.code, 1);
  assert.equal(failed.stdout, '');
  assert.match(failed.stderr, /^oddsbase: a PostgreSQL store is backed up with pg_dump[^\n]*\n$/);
  assert.ok(!failed.stderr.includes(url), 'the URL and its password are not printed');
});

test('migrate runs the migrations alone, once', async () => {
  const url = await (await postgres()).createDatabase();
  assert.match(
    (await cli('migrate', '--database-url', url)).stdout,
    /^applied migrations? [\d, ]+: the schema is at version \d+\n$/,
  );
  assert.match((await cli('migrate', '--database-url', url)).stdout, /nothing to apply\n$/);
  await assert.rejects(cli('migrate', '--database-url', 'mysql://localhost/x'), /must start with postgres:\/\//);
});

test('a database that cannot be used stops serve and the CLI with one line, its password not shown', async () => {
  const url = (await postgres()).url('no_such_database').replace(':oddsbase@', ':s3cret@');
  const refused = 'postgres://oddsbase:s3cret@127.0.0.1:1/oddsbase';
  for (const args of [
    ['keys', 'list', '--database-url', url],
    ['migrate', '--database-url', refused],
    ['serve', '--port', '0', '--host', '127.0.0.1', '--database-url', refused],
  ]) {
    const failed = await cli(...args).then(
      () => assert.fail(`${args.join(' ')} succeeded`),
      (err: { code: number; stderr: string }) => err,
    );
    assert.equal(failed.code, 1, args.join(' '));
    assert.match(
      failed.stderr,
      /oddsbase: the database 127\.0\.0\.1:\d+\/\w+ cannot be used: [^\n]+; check --database-url \(env DATABASE_URL\)\n$/,
    );
    assert.ok(!failed.stderr.includes('s3cret'), failed.stderr);
  }
});
