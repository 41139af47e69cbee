import type { ServerMessage } from '../../packages/client/src/index.ts';

/**
 * Keeps a view built from a REST snapshot current with stream deltas, without a gap or a change
 * applied twice (the merge of DESIGN.md rule 7): deltas that arrive while a snapshot loads wait;
 * once it is in, those past its head (`meta.delta_last_id`, a change-log position) apply in order
 * and the rest are dropped. A subscription acknowledged at a position beyond the snapshot's head
 * may have missed the changes in between, so the snapshot is read again.
 */
export class SnapshotMerge {
  private head = 0;
  private ackedAt = 0;
  private loading: Promise<void> | undefined;
  private again = false;
  private held: ServerMessage[] = [];
  private stopped = false;

  constructor(
    /** Reads and shows the snapshot; answers its head. */
    private readonly load: () => Promise<number>,
    private readonly apply: (msg: ServerMessage) => void,
  ) {}

  /** Reads the snapshot again (first load, a resync, a gap); concurrent calls share one read after the current. */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        const head = await this.load();
        if (this.stopped) return;
        this.head = Math.max(this.head, head);
        const held = this.held;
        this.held = [];
        for (const msg of held) this.delta(msg, true);
        if (this.ackedAt > this.head) this.again = true;
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** A subscription's first acknowledgement: the position its deltas follow. */
  acknowledged(position: number): void {
    this.ackedAt = Math.max(this.ackedAt, position);
    if (!this.loading && this.ackedAt > this.head) void this.reload();
  }

  delta(msg: ServerMessage, flushing = false): void {
    if (this.stopped) return;
    if (this.loading && !flushing) {
      this.held.push(msg);
      return;
    }
    const id = msg.position?.id;
    if (id !== undefined && id <= this.head) return;
    this.apply(msg);
  }

  stop(): void {
    this.stopped = true;
    this.held = [];
  }
}
