import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { openAccounts } from '../../src/compose.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startPostgres } from './services/postgres.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
const postgres = await startPostgres();
const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-mirror-standby-'));
const children: ServedChild['child'][] = [];
let upstream: TestServer | undefined;
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await upstream?.close();
  await postgres.stop();
  await redis.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const EVENT = 'msb0000000000000000000000000001';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function printed(child: ServedChild, line: RegExp, timeoutMs: number): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(50)) if (line.test(child.output())) return;
  throw new Error(`no line ${line} within ${timeoutMs} ms:\n${child.output().slice(-3000)}`);
}

it('a standby writer with --feed upstream mirrors once it has taken over', async () => {
  upstream = await startTestServer({ feed: 'ingest' });
  const seed: Update[] = [{ kind: 'event', event: nbaEvent(EVENT) }, ...nbaPrices(EVENT)];
  await upstream.server.services.ledger.apply({ at: new Date(Date.now() - 600_000).toISOString(), updates: seed });
  const move = (to: number) =>
    upstream!.server.services.ledger.apply({
      at: new Date().toISOString(),
      updates: [
        price(EVENT, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: to }),
      ],
    });
  const keyFile = join(dataDir, 'upstream.key');
  writeFileSync(keyFile, `${upstream.key}\n`, { mode: 0o600 });

  const databaseUrl = await postgres.createDatabase();
  const args = [
    '--role',
    'writer',
    '--database-url',
    databaseUrl,
    '--redis-url',
    redis.url,
    '--data-dir',
    dataDir,
    '--feed',
    'upstream',
    '--upstream-url',
    upstream.url,
    '--upstream-key-file',
    keyFile,
    '--upstream-poll-ms',
    '300',
    '--log-level',
    'warn',
  ];
  const first = await serveChild(args);
  children.push(first.child);
  // It finds the writer lock held: a standby, serving as an API node while it waits.
  const standby = await serveChild(args);
  children.push(standby.child);

  const accounts = await openAccounts({ dataDir, databaseUrl });
  const key = generateKey();
  await accounts.keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'test', custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
  );
  await accounts.close();
  const moneyline = async (url: string): Promise<number | undefined> => {
    const res = await fetch(`${url}/api/v2/events/${EVENT}?market_ids=1`, { headers: { 'X-Service-Key': key } });
    if (res.status !== 200) return undefined;
    const body = (await res.json()) as any;
    const ml = body.events?.[0]?.markets.find((m: { market_id: number }) => m.market_id === 1);
    return ml?.participants.find((p: { id: number }) => p.id === 2002)?.lines[0]?.prices['19']?.price;
  };
  const shows = async (url: string, want: number) => {
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(100)) {
      if ((await moneyline(url)) === want) return;
    }
    assert.fail(`${url} did not show ${want}`);
  };

  // The writer mirrors; the standby serves what it commits.
  await move(140);
  await shows(first.url, 140);
  await shows(standby.url, 140);
  const waiting = (await (await fetch(`${standby.url}/readyz`)).json()) as any;
  assert.equal(waiting.role, 'standby');

  first.child.kill('SIGKILL');
  await printed(standby, /took over as the writer/, 30_000);
  await printed(standby, /the mirror of \S+ goes on as the writer's feed/, 5_000);
  // Changed upstream after the takeover: only the new writer's mirror can bring it.
  await move(150);
  await shows(standby.url, 150);
  // Ready once its first catch-up is over (the price may show before the catch-up's last step).
  let body: any;
  for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
    const ready = await fetch(`${standby.url}/readyz`);
    body = await ready.json();
    if (ready.status === 200) break;
  }
  assert.equal(body.status, 'ready', JSON.stringify(body));
  assert.equal(body.role, 'writer');
  assert.equal(body.upstream, 'following');
});
