/**
 * The hot standby's takeover on a realistic store. A writer fills a fresh PostgreSQL database with
 * the simulator's first fill (every sport: today's games, then the days before in the background,
 * about a day of log); a standby (`--role writer`, which serves as an API node while it waits) and
 * an API node follow it. Then, RUNS times: `kill -9` of the writer, and the times from the kill
 *   - to the standby's line "took over as the writer" (it writes from then on),
 *   - to the first row the new writer commits (its commit time, read from the store),
 *   - to the first row of the new writer on the API node's markets delta;
 * then a new standby is started (it loads the store as an API node) for the next run.
 *
 *   node --import tsx bench/failover.ts [runs]
 *
 * PostgreSQL and Redis are started as the cluster tier starts them (test/cluster/services).
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { openAccounts } from '../src/compose.ts';
import { startPostgres } from '../test/cluster/services/postgres.ts';
import { startRedis } from '../test/cluster/services/redis.ts';
import { type ServedChild, serveChild } from '../test/helpers/serve-child.ts';
import { int, isMain, log, makeTmpDir, median, removeDir, sleep } from './lib.ts';

const TAKEN_OVER = /took over as the writer at change (\d+)/g;
/** Longest wait for the first fill's background part; the runs go on from wherever it stands then. */
const FILL_WAIT_MS = 8 * 60_000;
/** The bound: kill -9 to the new writer's first commit. */
export const TARGET_TAKEOVER_MS = 10_000;

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const postgres = await startPostgres();
  const redis = await startRedis();
  const dataDir = makeTmpDir('oddsbase-failover-bench-');
  const children: ServedChild[] = [];
  const serve = async (args: string[]) => {
    const c = await serveChild([...args, '--log-level', 'warn'], { timeoutMs: 900_000 });
    children.push(c);
    return c;
  };
  try {
    const databaseUrl = await postgres.createDatabase();
    const cluster = [
      '--role',
      'writer',
      '--database-url',
      databaseUrl,
      '--redis-url',
      redis.url,
      '--data-dir',
      dataDir,
    ];
    const fillStarted = Date.now();
    let writer = await serve(cluster);
    log(`writer listening after ${((Date.now() - fillStarted) / 1000).toFixed(1)} s (today's fill)`);
    for (const until = Date.now() + FILL_WAIT_MS; Date.now() < until; await sleep(2000)) {
      const ready = (await (await fetch(`${writer.url}/readyz`)).json()) as { history: string };
      if (ready.history === 'complete') break;
    }
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const rows = Number((await db.query('SELECT count(*) AS n FROM changes')).rows[0].n);
    log(`store: ${int(rows)} rows after ${((Date.now() - fillStarted) / 1000).toFixed(0)} s of filling`);
    const accounts = await openAccounts({ dataDir, databaseUrl });
    const key = generateKey();
    await accounts.keys.insert(
      newKeyRecord(key, 'enterprise', { label: 'bench', custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
    );
    await accounts.close();
    const loadStarted = Date.now();
    let standby = await serve(cluster);
    const node = await serve(cluster.map((a) => (a === 'writer' ? 'api' : a)));
    log(`standby and API node serving after ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
    const figures: { took: number; commit: number; node: number }[] = [];
    for (let run = 1; run <= runs; run++) {
      await sleep(5000);
      const before = standby.output().match(TAKEN_OVER)?.length ?? 0;
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
      const killedAt = Date.now();
      writer.child.kill('SIGKILL');
      let head = 0;
      let tookAt = 0;
      for (const until = killedAt + 60_000; Date.now() < until && tookAt === 0; await sleep(10)) {
        const lines = [...standby.output().matchAll(TAKEN_OVER)];
        if (lines.length > before) {
          tookAt = Date.now();
          head = Number(lines.at(-1)![1]);
        }
      }
      if (tookAt === 0) throw new Error(`run ${run}: no takeover within 60 s`);
      let nodeAt = 0;
      for (const until = Date.now() + 60_000; Date.now() < until && nodeAt === 0; await sleep(20)) {
        const res = await fetch(`${node.url}/api/v2/markets/delta?last_id=${head}&limit=1`, {
          headers: { 'X-Service-Key': key },
        });
        if (res.ok && ((await res.json()) as { deltas: unknown[] }).deltas.length > 0) nodeAt = Date.now();
      }
      const first = (await db.query('SELECT committed_ms::float8 AS ms FROM changes WHERE id = $1::bigint + 1', [head]))
        .rows[0] as { ms: number } | undefined;
      const f = { took: tookAt - killedAt, commit: (first?.ms ?? Number.NaN) - killedAt, node: nodeAt - killedAt };
      figures.push(f);
      log(
        `run ${run}: kill -9 -> writing ${f.took} ms, -> first commit ${f.commit} ms, -> on the API node ${f.node} ms (load ${load})`,
      );
      writer = standby;
      if (run < runs) standby = await serve(cluster);
    }
    await db.end();
    const m = (k: keyof (typeof figures)[number]) => median(figures.map((f) => f[k]));
    log(
      `median of ${runs} on ${int(rows)} rows, ${cpus().length} cores: writing ${m('took')} ms, first commit ${m('commit')} ms, on the API node ${m('node')} ms (target ${TARGET_TAKEOVER_MS} ms)`,
    );
  } finally {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await redis.close();
    await postgres.stop();
    removeDir(dataDir);
  }
}

if (isMain(import.meta.url)) await main();
