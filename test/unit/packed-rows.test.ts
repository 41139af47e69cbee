import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { KEEPING } from '../../src/perf/fresh-cache.ts';
import { PackedCache, packRows, unpackRows, unpackRowsSync } from '../../src/store/packed-rows.ts';
import { EVENT_A, priceRow, scoreRow } from '../contract/fixtures.ts';

const rows: ChangeRecord[] = [
  priceRow({ id: 1, price_id: 1 }),
  scoreRow({ id: 2 }),
  priceRow({ id: 3, price_id: 2, market_id: 3, price: 150 }),
];

test('a record unpacked off the request thread gives the rows it was packed from, as the synchronous read does', async () => {
  const body = await packRows(rows);
  assert.deepEqual(await unpackRows(EVENT_A, body), rows);
  assert.deepEqual(unpackRowsSync(EVENT_A, body), rows);
});

// What the cache keeps and shares; its plain twin reads at every call (ODDSBASE_PLAIN=1).
const KEEPS = KEEPING === 'plain' && 'the plain twin keeps nothing (ODDSBASE_PLAIN=1)';

test(
  'requests that ask for a record while it is read share that read, and later ones get it kept',
  { skip: KEEPS },
  async () => {
    const cache = new PackedCache();
    let reads = 0;
    let finish!: (r: ChangeRecord[]) => void;
    const read = () => {
      reads++;
      return new Promise<ChangeRecord[]>((resolve) => (finish = resolve));
    };
    const asked = [cache.load(EVENT_A, read), cache.load(EVENT_A, read), cache.load(EVENT_A, read)];
    finish(rows);
    const got = await Promise.all(asked);
    assert.equal(reads, 1);
    for (const r of got) assert.equal(r, got[0]);
    assert.equal(await cache.load(EVENT_A, read), got[0]);
    assert.equal(
      cache.get(EVENT_A, () => assert.fail('kept: not read again')),
      got[0],
    );
    assert.equal(reads, 1);
  },
);

test('a record not packed is read again each time; a failed read is not kept', async () => {
  const cache = new PackedCache();
  let reads = 0;
  assert.equal(await cache.load(EVENT_A, async () => (reads++, undefined)), undefined);
  assert.equal(await cache.load(EVENT_A, async () => (reads++, undefined)), undefined);
  assert.equal(reads, 2);
  await assert.rejects(
    cache.load(EVENT_A, () => Promise.reject(new Error('disk'))),
    /disk/,
  );
  assert.deepEqual(await cache.load(EVENT_A, async () => rows), rows);
});

test('a record larger than the budget is given but not kept', { skip: KEEPS }, async () => {
  const cache = new PackedCache(100);
  let reads = 0;
  const read = async () => (reads++, rows);
  await cache.load(EVENT_A, read);
  await cache.load(EVENT_A, read);
  assert.equal(reads, 2);
});

test('the record is decompressed while the event loop goes on', async () => {
  const many = Array.from({ length: 20_000 }, (_, i) =>
    priceRow({ id: i + 1, price_id: (i % 400) + 1, price: -110 - (i % 50) }),
  );
  const body = await packRows(many);
  let turns = 0;
  const counting = setInterval(() => turns++, 0);
  try {
    assert.equal((await unpackRows(EVENT_A, body)).length, many.length);
  } finally {
    clearInterval(counting);
  }
  assert.ok(turns > 0, `the loop went round ${turns} times while the record was decompressed`);
});
