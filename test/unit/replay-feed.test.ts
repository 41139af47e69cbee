import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import type { RecordedBatch, RecordedEntry } from '../../src/changelog/recording.ts';
import { REPLAY_BATCH_ROWS, ReplayFeed } from '../../src/feeds/replay/replay-feed.ts';
import { parseReplaySpeed } from '../../src/config.ts';

/** A row committed at `ms`: only the id and the commit time matter to the feed. */
const row = (id: number, ms: number): ChangeRecord => ({
  id,
  kind: 'score',
  event_id: 'e',
  sport_id: 6,
  at: new Date(ms).toISOString(),
  committed_ms: ms,
  price_id: null,
  affiliate_id: null,
  market_id: null,
  payload: '{}',
  detail: null,
});

async function* source(rows: RecordedEntry[]): AsyncGenerator<RecordedEntry> {
  yield* rows;
}

/** A named batch that ended at `head`, committed at `ms`. */
const named = (id: string, head: number, ms: number): RecordedBatch => ({
  kind: 'batch',
  batch_id: id,
  head_id: head,
  committed_ms: ms,
});

/** Replays `rows` at `speed` on a clock that moves only by the feed's sleeps; returns what happened. */
async function replay(rows: RecordedEntry[], speed: number, headId = 0) {
  const clock = { now: 5_000_000 };
  const events: string[] = [];
  const batches: number[][] = [];
  const feed = new ReplayFeed({
    rows: source(rows),
    speed,
    now: () => clock.now,
    sleep: async (ms) => {
      events.push(`sleep ${ms}`);
      clock.now += ms;
    },
    sink: {
      headId,
      applyRecorded: async (b, mark) => {
        const with_ = mark ? ` with ${mark.batch_id}` : '';
        events.push(`commit ${b.map((r) => r.id).join(',')}${with_} at ${clock.now - 5_000_000}`);
        batches.push(b.map((r) => r.id));
      },
    },
  });
  const result = await feed.done;
  return { events, batches, result };
}

const ROWS = [row(1, 100_000), row(2, 100_000), row(3, 101_000), row(4, 104_000), row(5, 104_000)];

test('each recorded commit is one batch, at its recorded offset divided by the speed', async () => {
  const { events, result } = await replay(ROWS, 2);
  assert.deepEqual(events, ['commit 1,2 at 0', 'sleep 500', 'commit 3 at 500', 'sleep 1500', 'commit 4,5 at 2000']);
  assert.deepEqual(result, { rows: 5, skipped: 0, complete: true });
});

test('speed 1 keeps the recorded timing; a slow commit is not waited for again', async () => {
  const { events } = await replay(ROWS, 1);
  assert.deepEqual(events, ['commit 1,2 at 0', 'sleep 1000', 'commit 3 at 1000', 'sleep 3000', 'commit 4,5 at 4000']);
});

test('speed 0 replays without waiting', async () => {
  const { events } = await replay(ROWS, 0);
  assert.deepEqual(events, ['commit 1,2 at 0', 'commit 3 at 0', 'commit 4,5 at 0']);
});

test('rows at or below the log head are skipped: a stopped replay goes on where the store ends', async () => {
  const { batches, result } = await replay(ROWS, 0, 3);
  assert.deepEqual(batches, [[4, 5]]);
  assert.deepEqual(result, { rows: 2, skipped: 3, complete: true });
});

test('a named batch ends the batch of its rows and goes with them, alone when it changed nothing', async () => {
  const entries = [
    row(1, 100_000),
    named('a', 1, 100_000),
    row(2, 100_000),
    row(3, 100_000),
    named('b', 3, 100_000),
    named('empty', 3, 102_000),
    row(4, 103_000),
  ];
  const { events, result } = await replay(entries, 1);
  assert.deepEqual(events, [
    'commit 1 with a at 0',
    'commit 2,3 with b at 0',
    'sleep 2000',
    'commit  with empty at 2000',
    'sleep 1000',
    'commit 4 at 3000',
  ]);
  assert.deepEqual(result, { rows: 4, skipped: 0, complete: true });
  // Its rows in the store already (--append): the batch goes alone, the ledger keeps it unless it has it.
  const skipped = await replay(entries, 0, 3);
  assert.deepEqual(skipped.events, [
    'commit  with a at 0',
    'commit  with b at 0',
    'commit  with empty at 0',
    'commit 4 at 0',
  ]);
});

test('a recorded commit larger than a batch goes in parts', async () => {
  const many = Array.from({ length: REPLAY_BATCH_ROWS + 10 }, (_, i) => row(i + 1, 7_000));
  const { batches } = await replay(many, 1);
  assert.deepEqual(
    batches.map((b) => b.length),
    [REPLAY_BATCH_ROWS, 10],
  );
});

test('a refused batch ends the replay with the ledger’s error', async () => {
  const feed = new ReplayFeed({
    rows: source(ROWS),
    speed: 0,
    sink: {
      headId: 0,
      applyRecorded: async () => {
        throw new Error('refused');
      },
    },
  });
  await assert.rejects(feed.done, /refused/);
});

test('--speed takes a number from 0 or max', () => {
  assert.equal(parseReplaySpeed('max'), 0);
  assert.equal(parseReplaySpeed('0'), 0);
  assert.equal(parseReplaySpeed('2.5'), 2.5);
  assert.equal(parseReplaySpeed(undefined), 1);
  for (const bad of ['-1', 'fast', ' ', 'Infinity']) assert.throws(() => parseReplaySpeed(bad), /--speed/);
});
