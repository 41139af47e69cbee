import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LoggedRow, type PayloadFilter, PayloadLog } from '../../src/board/payload-log.ts';

type Row = LoggedRow & { period_id: number };

/** Rows of about 400 bytes with ids that skip (event rows are not logged), across several sports and periods. */
function rows(n: number): Row[] {
  const out: Row[] = [];
  for (let i = 0, id = 1; i < n; i++, id += 1 + (i % 3 === 0 ? 1 : 0)) {
    const row = {
      id,
      sport_id: 3 + (i % 2),
      event_id: `ev${i % 7}`,
      affiliate_id: i % 11 === 0 ? null : 19 + (i % 5),
      market_id: i % 13 === 0 ? null : 1 + (i % 3),
    };
    // Non-ASCII text on some rows: offsets are in bytes, not characters.
    out.push({
      ...row,
      period_id: i % 4 === 0 ? 1 : 0,
      payload: JSON.stringify({ ...row, pad: `${i % 5 === 0 ? 'é' : 'x'}`.repeat(300) }),
    });
  }
  return out;
}

function expected(all: Row[], afterId: number, toId: number, limit: number, f: PayloadFilter) {
  const match = all.filter(
    (r) =>
      r.id > afterId &&
      r.id <= toId &&
      (f.sportId === undefined || r.sport_id === f.sportId) &&
      (f.eventId === undefined || r.event_id === f.eventId) &&
      (!f.affiliateIds || f.affiliateIds.has(r.affiliate_id ?? -1)) &&
      (!f.marketIds || f.marketIds.has(r.market_id ?? -1)) &&
      (!f.periodIds || f.periodIds.has(r.period_id)),
  );
  return { rows: match.slice(0, limit), more: match.length > limit };
}

test('a read returns exactly the matching rows in id order, across buffers and after trimming', () => {
  const all = rows(30_000);
  // 8 MB keeps two of the 4 MB buffers: the oldest rows are dropped and the floor moves up.
  const log = new PayloadLog(0, 8 * 1024 * 1024);
  for (const r of all) log.append(r, r.period_id);
  assert.ok(log.floor > 0, 'the oldest rows were dropped');
  const kept = all.filter((r) => r.id > log.floor);
  assert.ok(kept.length > 10_000 && kept.length < all.length);
  const head = all[all.length - 1]!.id;
  const filters: PayloadFilter[] = [
    {},
    { sportId: 3 },
    { eventId: 'ev2', sportId: 4 },
    { affiliateIds: new Set([19, 23]) },
    { marketIds: new Set([2]) },
    { periodIds: new Set([1]) },
    { affiliateIds: new Set([19, 20]), periodIds: new Set([0]) },
  ];
  for (const afterId of [log.floor, log.floor + 1, Math.floor((log.floor + head) / 2), head - 5, head]) {
    for (const toId of [head, afterId + 7000]) {
      for (const limit of [1, 5000]) {
        for (const f of filters) {
          const got = log.read(afterId, Math.min(toId, head), limit, f);
          const want = expected(kept, afterId, Math.min(toId, head), limit, f);
          const parsed = JSON.parse(`[${Buffer.concat(got.parts).toString()}]`) as { id: number }[];
          const shown = {
            ...f,
            affiliateIds: [...(f.affiliateIds ?? [])],
            marketIds: [...(f.marketIds ?? [])],
            periodIds: [...(f.periodIds ?? [])],
          };
          const label = `after ${afterId}, to ${toId}, limit ${limit}, ${JSON.stringify(shown)}`;
          assert.deepEqual(
            parsed.map((r) => r.id),
            want.rows.map((r) => r.id),
            label,
          );
          assert.deepEqual(
            parsed,
            want.rows.map((r) => JSON.parse(r.payload)),
            label,
          );
          assert.equal(got.count, want.rows.length, label);
          assert.equal(got.lastRowId, want.rows.at(-1)?.id ?? 0, label);
          assert.equal(got.more, want.more, label);
        }
      }
    }
  }
});

test('an unfiltered read is slices of the log, not copies', () => {
  const log = new PayloadLog(0);
  for (const r of rows(100)) log.append(r, r.period_id);
  const got = log.read(0, 1000, 50, {});
  assert.equal(got.parts.length, 1, 'consecutive rows in one buffer are one slice');
  assert.equal(got.count, 50);
});
