import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { startTestServer } from '../helpers/server.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
after(() => redis.close());

const SECONDS = 6;

it('two servers on one Redis (--redis-url) hold a 10/s key to 10 a second together', async (t) => {
  const servers = [await startTestServer({ redisUrl: redis.url }), await startTestServer({ redisUrl: redis.url })];
  t.after(() => Promise.all(servers.map((s) => s.close())));
  const key = generateKey();
  for (const s of servers) await s.server.keys.insert(newKeyRecord(key, 'ultra', { label: 'shared' }));

  // Each server is asked 20 times a second, one request at a time, from one second boundary on.
  const start = (Math.ceil(Date.now() / 1000) + 1) * 1000;
  const end = start + SECONDS * 1000;
  const statuses = new Map<number, number>();
  await Promise.all(
    servers.map(async (s) => {
      await new Promise((r) => setTimeout(r, start - Date.now()));
      while (Date.now() < end - 60) {
        const res = await s.get('/api/v2/markets', { 'X-Service-Key': key });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
  const ok = statuses.get(200) ?? 0;
  t.diagnostic(`in ${SECONDS} s: ${ok} answered 200, ${statuses.get(429) ?? 0} refused 429`);
  assert.deepEqual([...statuses.keys()].sort(), [200, 429]);
  assert.ok(ok >= 0.9 * 10 * SECONDS && ok <= 1.1 * 10 * SECONDS, `${ok} answered in ${SECONDS} s, not 10 a second`);
  const metrics = await (await fetch(servers[0]!.server.metricsUrl!)).text();
  assert.match(metrics, /^oddsbase_bus_dropped_batches_total 0$/m);
});

it('a server whose Redis does not answer stops its start with a clear message, its store closed', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-test-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await assert.rejects(
    startTestServer({ dataDir, redisUrl: 'redis://127.0.0.1:9' }),
    /Redis at 127\.0\.0\.1:9 did not answer within 10 s/,
  );
  // The data directory is free again: a server without Redis starts on it.
  const s = await startTestServer({ dataDir });
  await s.close();
});
