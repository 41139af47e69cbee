import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { Bus, CommittedBatch } from '../../src/bus/bus.ts';
import { EVENT_A, EVENT_B, eventRow, priceRow } from './fixtures.ts';

export interface BusFixture {
  /** The node whose ledger publishes. */
  publisher: Bus;
  /**
   * A node that receives what the publisher publishes: the same bus within one process, another
   * node's bus on the same server for a shared backend.
   */
  subscriber: Bus;
  /** What the subscriber's error handler was given (errors its listeners threw). */
  errors: unknown[];
  cleanup(): Promise<void>;
}

export const EPOCH = 'e0c0ffee';

/** A committed batch of `n` rows after `fromId`: price rows, with an event row first. */
export function committed(fromId: number, n: number, epoch = EPOCH): CommittedBatch {
  const changes = [];
  for (let id = fromId + 1; id <= fromId + n; id++) {
    changes.push(id === fromId + 1 ? eventRow({ id }) : priceRow({ id, price_id: id, price: -110 - (id % 7) }));
  }
  return { epoch, fromId, headId: fromId + n, changes, eventIds: [EVENT_A] };
}

/** Polls until `done()` holds; fails after `ms`. */
export async function until(done: () => boolean, ms = 5000, what = 'delivery'): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The Bus contract (src/bus/bus.ts), run against every backend. Deliveries are awaited, never
 * assumed synchronous, except on the publishing node, where the contract makes them so.
 */
export function busContract(name: string, make: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${name}`, () => {
    async function fresh(t: TestContext): Promise<BusFixture> {
      const f = await make();
      t.after(() => f.cleanup());
      return f;
    }

    it('delivers each batch whole, in commit order', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: CommittedBatch[] = [];
      subscriber.subscribe((b) => got.push(b));
      const sent = [committed(0, 3), committed(3, 1), committed(4, 5)];
      for (const b of sent) publisher.publish(b);
      await until(() => got.length >= sent.length);
      assert.deepEqual(got, sent);
    });

    it('keeps every field of a row: payload text, null detail, event ids, the epoch', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: CommittedBatch[] = [];
      subscriber.subscribe((b) => got.push(b));
      const row = { ...eventRow({ id: 11, event_id: EVENT_B }), payload: '{"name":"Ünïcode \\"quoted\\" ☃ \\u2028"}' };
      const sent: CommittedBatch = {
        epoch: 'another-epoch',
        fromId: 10,
        headId: 11,
        changes: [row],
        eventIds: [EVENT_B],
      };
      publisher.publish(sent);
      await until(() => got.length === 1);
      assert.deepEqual(got[0], sent);
    });

    it('carries a batch of 2,000 rows', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: CommittedBatch[] = [];
      subscriber.subscribe((b) => got.push(b));
      const sent = committed(100, 2000);
      publisher.publish(sent);
      await until(() => got.length === 1);
      assert.deepEqual(got[0], sent);
    });

    it('a batch prepared and never published reaches no one; the one published instead arrives as it is', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: CommittedBatch[] = [];
      subscriber.subscribe((b) => got.push(b));
      // The store refused the first: the writer plans the same ids again, into other rows.
      const refused = committed(20, 3, 'refused-epoch');
      publisher.prepare?.(refused);
      const instead = committed(20, 2);
      publisher.publish(instead);
      const prepared = committed(22, 4);
      publisher.prepare?.(prepared);
      publisher.publish(prepared);
      await until(() => got.length >= 2);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(got, [instead, prepared]);
    });

    it('batches published in a row reach a listener with no gap: each fromId is the last headId', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: CommittedBatch[] = [];
      subscriber.subscribe((b) => got.push(b));
      let head = 0;
      for (let i = 0; i < 200; i++) {
        const b = committed(head, 1 + (i % 5));
        head = b.headId;
        publisher.publish(b);
      }
      await until(() => got.length === 200);
      let last = 0;
      for (const b of got) {
        assert.equal(b.fromId, last);
        last = b.headId;
      }
      assert.equal(last, head);
    });

    it('every listener receives each batch once; one function subscribed twice is two listeners', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const a: number[] = [];
      const b: number[] = [];
      const twice = (batch: CommittedBatch) => b.push(batch.headId);
      subscriber.subscribe((batch) => a.push(batch.headId));
      subscriber.subscribe(twice);
      subscriber.subscribe(twice);
      publisher.publish(committed(0, 2));
      publisher.publish(committed(2, 2));
      await until(() => a.length === 2 && b.length === 4);
      assert.deepEqual(a, [2, 4]);
      assert.deepEqual(b, [2, 2, 4, 4]);
    });

    it('an unsubscribed listener receives nothing more; the others go on', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const kept: number[] = [];
      const dropped: number[] = [];
      subscriber.subscribe((b) => kept.push(b.headId));
      const off = subscriber.subscribe((b) => dropped.push(b.headId));
      publisher.publish(committed(0, 1));
      await until(() => kept.length === 1 && dropped.length === 1);
      off();
      publisher.publish(committed(1, 1));
      publisher.publish(committed(2, 1));
      await until(() => kept.length === 3);
      assert.deepEqual(kept, [1, 2, 3]);
      assert.deepEqual(dropped, [1]);
    });

    it('a listener that throws stops neither the others nor the publisher; its error goes to the handler', async (t) => {
      const { publisher, subscriber, errors } = await fresh(t);
      const boom = new Error('listener failed');
      const before: number[] = [];
      const after: number[] = [];
      subscriber.subscribe((b) => before.push(b.headId));
      subscriber.subscribe(() => {
        throw boom;
      });
      subscriber.subscribe((b) => after.push(b.headId));
      assert.doesNotThrow(() => publisher.publish(committed(0, 1)));
      assert.doesNotThrow(() => publisher.publish(committed(1, 1)));
      await until(() => after.length === 2);
      assert.deepEqual(before, [1, 2]);
      assert.deepEqual(after, [1, 2]);
      await until(() => errors.length === 2, 5000, 'the error handler');
      assert.ok(errors.every((e) => e === boom));
    });

    it('on the publishing node, listeners have the batch before publish returns', async (t) => {
      const { publisher } = await fresh(t);
      const got: number[] = [];
      publisher.subscribe((b) => got.push(b.headId));
      publisher.publish(committed(0, 3));
      assert.deepEqual(got, [3]);
      publisher.publish(committed(3, 1));
      assert.deepEqual(got, [3, 4]);
    });

    it('after close, publish neither throws nor delivers', async (t) => {
      const { publisher, subscriber } = await fresh(t);
      const got: number[] = [];
      subscriber.subscribe((b) => got.push(b.headId));
      publisher.publish(committed(0, 1));
      await until(() => got.length === 1);
      await subscriber.close();
      await publisher.close();
      assert.doesNotThrow(() => publisher.publish(committed(1, 1)));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(got, [1]);
    });
  });
}
