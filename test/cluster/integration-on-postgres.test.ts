import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type PostgresService, startPostgres } from './services/postgres.ts';

/**
 * The integration suites of the REST routes, the delta feeds, history and both streams, run as they
 * are against servers whose store is PostgreSQL: test/helpers/server.ts gives each test server a
 * database of its own when ODDSBASE_TEST_POSTGRES names a server (test/helpers/test-store.ts), and
 * with ODDSBASE_TEST_TOPOLOGY=api makes each one a writer and an API node following it through a
 * Redis of its own, the suites' requests and streams going to the node (test/helpers/api-topology.ts).
 */
const SUITES = (
  process.env.ODDSBASE_CLUSTER_SUITES ??
  'v2-rest,delta,history,openers-closing,game-stats,futures,v1-rest,stream-markets,stream-multiplex'
)
  .split(',')
  .map((name) => `test/integration/${name}.test.ts`);

/** `embedded,api` by default; ODDSBASE_CLUSTER_TOPOLOGIES runs fewer. */
const TOPOLOGIES = (process.env.ODDSBASE_CLUSTER_TOPOLOGIES ?? 'embedded,api').split(',');

let service: PostgresService | undefined;
before(async () => {
  service = await startPostgres();
});
after(async () => {
  await service?.stop();
});

for (const topology of TOPOLOGIES) {
  const on = topology === 'api' ? 'on an API node following a writer' : 'on PostgreSQL';
  test(`the integration suites ${on}: ${SUITES.join(', ')}`, { timeout: 1_800_000 }, async (t) => {
    // A runner of its own: node:test marks its children (NODE_TEST_CONTEXT) and would not run files in one.
    const { NODE_TEST_CONTEXT: _marked, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...SUITES], {
      env: { ...env, ODDSBASE_TEST_POSTGRES: service!.url(), ODDSBASE_TEST_TOPOLOGY: topology },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const failed = out.split('\n').filter((l) => /^\s*not ok /.test(l));
    assert.equal(code, 0, `${failed.join('\n')}\n\n${out.slice(-20_000)}`);
    assert.match(out, /^# pass [1-9]/m);
    t.diagnostic((out.match(/^# (tests|pass|fail) \d+$/gm) ?? []).join(', '));
  });
}
