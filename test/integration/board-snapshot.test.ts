import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import { PLAIN } from '../../src/perf/switch.ts';
import { connect } from '../helpers/ws-client.ts';
import { batch, moneylineMoves, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The board snapshot (src/board/board-snapshot.ts): a restart that takes it back answers as a
 * restart that loads the store, byte for byte, delayed views and resumes included; a snapshot
 * that no longer matches, or cannot be read, is left aside for the load.
 */

const E = 'd'.repeat(32);
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// The snapshot's plain twin is the load itself: under ODDSBASE_PLAIN=1 no snapshot is written or read.
const skip = PLAIN && 'the plain twin of the speed wall loads the store at every start';

const took = (s: TestServer) => s.said.some((l) => l.includes('took back the board saved at the last shutdown'));

/** A server's answer as text, with a key of `tier` made on it. */
async function texts(s: TestServer, paths: readonly string[], tier: 'free' | 'pro' | 'enterprise'): Promise<string[]> {
  const key = await s.newKey(tier, { custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
  const out: string[] = [];
  for (const path of paths) {
    const res = await fetch(s.url + path, { headers: { 'X-Service-Key': key } });
    out.push(`${res.status} ${res.headers.get('x-data-delay-seconds') ?? ''} ${await res.text()}`);
  }
  return out;
}

/** What a markets stream resumed from `from` replays, up to its resume_complete. */
async function resumed(s: TestServer, from: { id: number; epoch: string }): Promise<unknown[]> {
  const c = await connect(`${s.url.replace('http', 'ws')}/api/v2/ws`, { 'X-Service-Key': s.key });
  try {
    c.send({ action: 'subscribe', id: 'r', channel: 'markets', params: { event_ids: [E], resume_from: from } });
    const out: unknown[] = [];
    for (;;) {
      const m = await c.next(undefined, 10_000);
      out.push(m);
      if (m.type === 'resume_complete' || m.type === 'snapshot_error') return out;
    }
  } finally {
    await c.close();
  }
}

test(
  'a restart from the board snapshot answers as a restart that loads the store, byte for byte',
  { skip },
  async () => {
    const first = await startTestServer({ simulator: true, sports: [6], seed: 7 });
    const ledger = first.server.ledger;
    const at = new Date().toISOString();
    await ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
    const from = ledger.position;
    // Changes described now: the delayed views hold them back across the restart.
    for (const b of moneylineMoves(E, 3, at)) await ledger.apply(b);
    await ledger.apply(
      batch(at, [
        price(E, {
          market_id: 2,
          participant_id: 2002,
          affiliate_id: 19,
          line: '-5.5',
          price: -110,
          is_main_line: true,
        }),
      ]),
    );
    const sports = await first.get(`/api/v2/sports/events/${today()}?sport_ids=6`);
    await first.close({ keepData: true });
    dirs.push(first.dataDir);
    assert.ok(
      first.said.some((l) => l.includes('board saved for the next start')),
      first.said.join('\n'),
    );
    assert.ok(existsSync(join(first.dataDir, SNAPSHOT_FILE)));

    const twin = mkdtempSync(join(tmpdir(), 'oddsbase-twin-'));
    dirs.push(twin);
    cpSync(first.dataDir, twin, { recursive: true });
    rmSync(join(twin, SNAPSHOT_FILE));

    // One clock for both, within the longest delay of the last changes.
    const t = Date.now();
    const fromSnapshot = await startTestServer({ dataDir: first.dataDir, now: () => t });
    const loaded = await startTestServer({ dataDir: twin, now: () => t });
    try {
      assert.ok(took(fromSnapshot), fromSnapshot.said.join('\n'));
      assert.ok(!took(loaded));
      assert.ok(!existsSync(join(first.dataDir, SNAPSHOT_FILE)), 'a snapshot is read once');
      const sixEvents = (sports.body as Record<string, string[]>)['6'] ?? [];
      assert.ok(sixEvents.length > 0, 'the fill made events of sport 6');
      const paths = [
        `/api/v2/sports/6/events/${today()}?include=price_delta`,
        `/api/v2/sports/4/events/${today()}?market_ids=1,2,3&include=price_delta`,
        `/api/v2/events/${E}?market_ids=1,2,3&include=price_delta`,
        `/api/v2/events/${sixEvents[0]}`,
        `/api/v2/markets/delta?last_id=${from.id}&limit=5000`,
        `/api/v2/markets/delta?last_id=${from.id}&event_id=${E}`,
        `/api/v2/events/${sixEvents[0]}/stats`,
        `/api/v2/events/${sixEvents[0]}/players/stats`,
        `/api/v2/sports/6/futures`,
      ];
      for (const tier of ['enterprise', 'pro', 'free'] as const) {
        const [a, b] = [await texts(fromSnapshot, paths, tier), await texts(loaded, paths, tier)];
        for (let i = 0; i < paths.length; i++) assert.equal(a[i], b[i], `${tier} ${paths[i]}`);
      }
      const delayed = await texts(fromSnapshot, [paths[2]!], 'free');
      const live = await texts(fromSnapshot, [paths[2]!], 'enterprise');
      assert.notEqual(delayed[0], live[0], 'the Free view still holds the last changes back');
      assert.deepEqual(await resumed(fromSnapshot, from), await resumed(loaded, from));
      assert.equal(fromSnapshot.server.ledger.headId, loaded.server.ledger.headId);
      // The writer goes on with the same ids.
      const next = batch(new Date(t).toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 171 }),
      ]);
      await fromSnapshot.server.ledger.apply(next);
      await loaded.server.ledger.apply(next);
      const [a, b] = [
        await texts(fromSnapshot, [paths[4]!], 'enterprise'),
        await texts(loaded, [paths[4]!], 'enterprise'),
      ];
      assert.equal(a[0], b[0]);
    } finally {
      await fromSnapshot.close({ keepData: true });
      await loaded.close({ keepData: true });
    }
  },
);

test(
  'a snapshot that no longer matches the store, or cannot be read, is left aside: the store is loaded',
  { skip },
  async () => {
    const s = await startTestServer();
    dirs.push(s.dataDir);
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
    );
    await s.close({ keepData: true });
    const file = join(s.dataDir, SNAPSHOT_FILE);
    const older = readFileSync(file);
    const path = `/api/v2/events/${E}?market_ids=1,2,3`;

    // A start takes it back, moves the log on and writes its own; the older one is put back.
    const second = await startTestServer({ dataDir: s.dataDir });
    assert.ok(took(second));
    await second.server.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 188 })]),
    );
    const expected = (await second.get(path)).body;
    await second.close({ keepData: true });
    const newer = readFileSync(file);
    const cases: [string, Buffer, RegExp][] = [
      ['stale', older, /the change log moved on since the board snapshot was written: loading the store/],
      [
        'corrupt',
        Buffer.from('not a snapshot at all'),
        /the board snapshot (could not be read|is not one this server reads)/,
      ],
      ['cut short', newer.subarray(0, newer.length >> 1), /the board snapshot could not be read/],
      [
        'other code',
        serialize({
          ...(deserialize(newer) as object),
          stamp: { ...(deserialize(newer) as { stamp: object }).stamp, version: 'x' },
        }),
        /the board snapshot was written by other code/,
      ],
    ];
    for (const [name, bytes, said] of cases) {
      writeFileSync(file, bytes);
      const again = await startTestServer({ dataDir: s.dataDir });
      try {
        assert.ok(!took(again), name);
        assert.ok(
          again.said.some((l) => said.test(l)),
          `${name}: ${again.said.join('\n')}`,
        );
        assert.deepEqual((await again.get(path)).body, expected, name);
      } finally {
        await again.close({ keepData: true });
      }
    }
    // A stop cut short while writing leaves a part, which the next start removes unread.
    writeFileSync(`${file}.part`, 'half a snapshot');
    const cut = await startTestServer({ dataDir: s.dataDir });
    try {
      assert.ok(!existsSync(`${file}.part`));
      assert.deepEqual((await cut.get(path)).body, expected);
    } finally {
      await cut.close({ keepData: true });
    }
  },
);
