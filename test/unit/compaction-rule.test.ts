import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byCompactionKey, chunkOf, type CompactionProbe, droppedOfKey } from '../../src/store/compaction-rule.ts';
import { answerNow } from '../../src/store/sql/asked.ts';
import { eventRow, playRow, priceRow, time } from '../contract/fixtures.ts';

/**
 * The rule both SQL stores judge a compaction step's rows by, and the probes it asks of them (the
 * stores' steps themselves are in test/contract/store.contract.ts).
 */

const CUTOFF = time(100);
const price = (id: number, at = time(id)) => priceRow({ id, price_id: 7, at });

/** Runs the rule over `rows`, answering each probe from `answers`, and says what it asked. */
function judge(
  rows: ReturnType<typeof price>[],
  startAt: string | undefined,
  answers: { superseded?: boolean; beforeStart?: boolean } = {},
) {
  const asked: string[] = [];
  const gone = answerNow(droppedOfKey(rows, CUTOFF, startAt), (p: CompactionProbe) => {
    asked.push(`${p.probe} ${p.row.id}`);
    const answer = p.probe === 'superseded' ? answers.superseded : answers.beforeStart;
    assert.notEqual(answer, undefined, `unexpected probe ${p.probe} of row ${p.row.id}`);
    return answer!;
  });
  return { gone, asked };
}

test('a price keeps its first and last rows; only its last row needs a probe for a newer one', () => {
  const rows = [price(1), price(2), price(3)];
  assert.deepEqual(judge(rows, undefined, { superseded: false }), { gone: [2], asked: ['superseded 3'] });
  assert.deepEqual(judge(rows, undefined, { superseded: true }), { gone: [3, 2], asked: ['superseded 3'] });
});

test('rows at or after the cutoff are neither judged nor probed', () => {
  const rows = [price(1), price(2), price(101)];
  assert.deepEqual(judge(rows, undefined), { gone: [2], asked: [] });
});

test('the closing row stays unless a later row before the start lies past the step, asked once a key', () => {
  // Rows 2 and 3 are at or before the start; row 4 is after it.
  const rows = [price(1), price(2), price(3), price(4)];
  const start = time(3);
  assert.deepEqual(judge(rows, start, { superseded: false, beforeStart: false }), {
    gone: [2],
    asked: ['superseded 4', 'before-start 3'],
  });
  assert.deepEqual(judge(rows, start, { superseded: false, beforeStart: true }), {
    gone: [3, 2],
    asked: ['superseded 4', 'before-start 3'],
  });
});

test('a key of another kind keeps only its last row', () => {
  const rows = [eventRow({ id: 1 }), eventRow({ id: 2 }), eventRow({ id: 3 })];
  assert.deepEqual(judge(rows, undefined, { superseded: false }), { gone: [2, 1], asked: ['superseded 3'] });
});

test('rows by key, in order, without the rows never dropped', () => {
  const keys = byCompactionKey([price(1), playRow({ id: 2, sequence: 1 }), eventRow({ id: 3 }), price(4)]);
  assert.deepEqual(
    [...keys].map(([key, rows]) => [key, rows.map((r) => r.id)]),
    [
      ['price|7', [1, 4]],
      [`event|${'a'.repeat(32)}`, [3]],
    ],
  );
});

test('a chunk starts at the first id a row has, takes at most maxRows ids and stops at the boundary', () => {
  assert.deepEqual(chunkOf(1, 1, 100, 10), { from: 1, end: 11 });
  // A restored log's gap of ids takes no step.
  assert.deepEqual(chunkOf(1, 1_000_000, 2_000_000, 10), { from: 1_000_000, end: 1_000_010 });
  assert.deepEqual(chunkOf(95, 95, 100, 10), { from: 95, end: 100 });
  // No row from the retained id on below the boundary: an empty chunk at the boundary.
  assert.deepEqual(chunkOf(5, undefined, 50, 10), { from: 50, end: 50 });
  assert.deepEqual(chunkOf(5, 70, 50, 10), { from: 50, end: 50 });
});
