import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateAdminToken, newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteAdminTokenStore } from '../../src/store/sqlite/sqlite-secrets.ts';
import { nbaEvent, price } from '../helpers/fixtures.ts';
import { serveChild } from '../helpers/serve-child.ts';
import { startTestServer } from '../helpers/server.ts';

const EVENT = 'crash00000000000000000000000001';
const PER_BATCH = 200;

/** Batch i: PER_BATCH alternate totals of its own (lines `i:k`), so every row tells its batch. */
const batchBody = (i: number) =>
  Array.from({ length: PER_BATCH }, (_, k) =>
    JSON.stringify(
      price(EVENT, { market_id: 3, participant_id: k % 2, line: `${i}:${k >> 1}`, affiliate_id: 19, price: -110 }),
    ),
  ).join('\n');

test('kill -9 in the middle of a stream of batches: every acknowledged batch kept, none partial', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-crash-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const token = generateAdminToken();
  const db = openSqlite(dataDir);
  await new SqliteAdminTokenStore(db).insert(newAdminTokenRecord(token));
  db.close();

  // The command itself, as it is run.
  const { child, url, exited } = await serveChild(['--feed', 'ingest', '--data-dir', dataDir], {
    env: { LOG_LEVEL: 'silent' },
    timeoutMs: 120_000,
  });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const post = (id: string, body: string) =>
    fetch(`${url}/admin/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', 'idempotency-key': id },
      body,
    });
  const first = await post('crash-event', JSON.stringify({ kind: 'event', event: nbaEvent(EVENT) }));
  assert.equal(first.status, 200);

  // Two senders stream batches; the server is killed while they run, batches in flight.
  const acknowledged = new Set<number>();
  const sentAt = new Set<number>();
  let next = 0;
  let killed = false;
  const sender = async () => {
    while (!killed) {
      const i = next++;
      sentAt.add(i);
      try {
        const res = await post(`crash-${i}`, batchBody(i));
        if (res.status === 200) acknowledged.add(i);
        await res.arrayBuffer();
      } catch {
        return; // the connection died with the server
      }
    }
  };
  const senders = [sender(), sender()];
  while (acknowledged.size < 20) await new Promise((r) => setTimeout(r, 20));
  killed = true;
  child.kill('SIGKILL');
  await exited;
  await Promise.all(senders);

  const s = await startTestServer({ feed: 'ingest', dataDir });
  try {
    const store = s.server.services.store;
    const ev = (await s.get(`/api/v2/events/${EVENT}?market_ids=3`)).body.events[0];
    const lines = new Map<number, number>();
    for (const p of ev.markets[0].participants) {
      for (const l of p.lines) {
        const batch = Number(l.value.split(':')[0]);
        lines.set(batch, (lines.get(batch) ?? 0) + 1);
      }
    }
    for (const i of acknowledged) {
      assert.notEqual(await store.batchHead(`crash-${i}`), undefined, `acknowledged batch ${i} is kept`);
      assert.equal(lines.get(i), PER_BATCH, `acknowledged batch ${i} is whole`);
    }
    for (const i of sentAt) {
      const kept = (await store.batchHead(`crash-${i}`)) !== undefined;
      assert.equal(lines.get(i) ?? 0, kept ? PER_BATCH : 0, `batch ${i} is whole or absent`);
    }
    assert.ok(acknowledged.size >= 20);
  } finally {
    await s.close({ keepData: true });
  }
});
