import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessSummary } from '../../src/ops/access-summary.ts';

test('one line per interval counts requests by status class with their mean and slowest time', () => {
  let t = 1_000_000;
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const summary = new AccessSummary(
    (fields, message) => lines.push({ fields, message }),
    60_000,
    () => t,
  );
  summary.record(200, 2);
  summary.record(200, 4);
  summary.record(304, 1);
  summary.record(429, 0.5);
  summary.record(503, 12.5);
  t += 60_000;
  summary.flush();
  assert.deepEqual(lines, [
    {
      message: 'requests answered',
      fields: {
        requests: 5,
        status: { '2xx': 2, '3xx': 1, '4xx': 1, '5xx': 1 },
        mean_ms: 4,
        max_ms: 12.5,
        seconds: 60,
      },
    },
  ]);
  // Counting starts again; an interval without requests writes nothing.
  t += 60_000;
  summary.flush();
  assert.equal(lines.length, 1);
  summary.record(200, 3);
  t += 30_000;
  summary.close();
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[1]!.fields, { requests: 1, status: { '2xx': 1 }, mean_ms: 3, max_ms: 3, seconds: 30 });
});
