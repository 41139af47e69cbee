import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LedgerBusyError } from '../../src/ledger/ledger-errors.ts';
import { WriteQueue } from '../../src/ledger/write-queue.ts';
import { type BatchTurn, nextTurn } from '../../src/perf/batch-turn.ts';

const TURNS: [string, BatchTurn][] = [
  ['a turn of the loop before each batch (the trick)', nextTurn],
  ['no turn (the plain twin)', undefined],
];

for (const [name, turn] of TURNS) {
  test(`write queue, ${name}: batches and steps run one at a time, in the order handed in`, async () => {
    const q = new WriteQueue(10, turn);
    const seen: string[] = [];
    let running = 0;
    const job =
      (label: string, fail = false) =>
      async () => {
        assert.equal(running, 0, `${label} started while another ran`);
        running++;
        seen.push(`start ${label}`);
        await new Promise((r) => setTimeout(r, 2));
        seen.push(`end ${label}`);
        running--;
        if (fail) throw new Error(label);
        return label;
      };
    const a = q.admit(job('a'));
    const b = q.admit(job('b', true));
    const step = q.serial(job('step'));
    const c = q.admit(job('c'));
    assert.equal(q.backlog, 3);
    assert.equal(await a, 'a');
    await assert.rejects(b, /b/);
    assert.equal(await step, 'step');
    assert.equal(await c, 'c');
    await q.settled();
    assert.equal(q.backlog, 0);
    assert.deepEqual(seen, ['start a', 'end a', 'start b', 'end b', 'start step', 'end step', 'start c', 'end c']);
  });

  test(`write queue, ${name}: past maxQueued waiting batches it refuses at once; steps are always taken`, async () => {
    const q = new WriteQueue(2, turn);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = q.admit(() => held);
    const second = q.admit(async () => 2);
    await assert.rejects(
      q.admit(async () => 3),
      (err: unknown) => err instanceof LedgerBusyError,
    );
    const step = q.serial(async () => 'step');
    release();
    await first;
    assert.equal(await second, 2);
    assert.equal(await step, 'step');
  });
}

test('write queue: with the turn, what the batch before scheduled with process.nextTick runs before the next batch starts', async () => {
  // An HTTP answer is written from a nextTick (its socket uncorked there); without the turn the next
  // commit held the thread first.
  for (const [turn, answeredFirst] of [
    [nextTurn, true],
    [undefined, false],
  ] as const) {
    const q = new WriteQueue(10, turn);
    const seen: string[] = [];
    const a = q.admit(async () => 'a');
    const b = q.admit(async () => {
      seen.push('b starts');
    });
    void a.then(() => process.nextTick(() => seen.push('answer of a')));
    await b;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, answeredFirst ? ['answer of a', 'b starts'] : ['b starts', 'answer of a']);
  }
});
