import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBatch } from '../../src/bus/redis/batch-codec.ts';
import type { ChangeRecord, CommittedBatch } from '../../src/changelog/change.ts';
import { rowByRow, wholeText } from '../../src/perf/batch-entry.ts';

function row(id: number, name: string, detail: string | null = '{"period_id":0}'): ChangeRecord {
  return {
    id,
    kind: 'price',
    event_id: `ev-${id % 7}`,
    sport_id: 4,
    at: '2026-12-07T10:00:00.000Z',
    committed_ms: 1_796_637_010_357 + id,
    price_id: id * 3,
    affiliate_id: 19,
    market_id: 1,
    payload: JSON.stringify({ id, participant_name: name, price: '-110', line: '' }),
    detail,
  };
}

function batch(changes: ChangeRecord[]): CommittedBatch {
  const first = changes[0]?.id ?? 100;
  return {
    epoch: 'f3a9c2d1-epoch',
    fromId: first - 1,
    headId: changes.at(-1)?.id ?? first - 1,
    changes,
    eventIds: [...new Set(changes.map((c) => c.event_id))],
  };
}

test('a batch entry written row by row is byte for byte the whole text of the plain twin', () => {
  const names = ['Boston', 'Montréal', 'São Paulo 🦅', 'quote " and \\ back', 'line\nbreak\u2028tab\t', '東京', ''];
  const cases = [
    batch([]),
    batch([row(101, 'Boston', null)]),
    batch(Array.from({ length: 2_000 }, (_, i) => row(1_000 + i, names[i % names.length]!))),
    // Rows far longer than the first guess of room: the buffer grows, more than once.
    batch(Array.from({ length: 5 }, (_, i) => row(9_000 + i, '€'.repeat(4_000 * (i + 1))))),
  ];
  for (const b of cases) {
    const fast = rowByRow(b);
    assert.ok(fast.equals(wholeText(b)), `${b.changes.length} rows`);
    assert.deepEqual(decodeBatch(fast.toString()), b);
  }
});
