import type { MarketsDeltaConsumer } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import { heldPrice } from './held-prices.ts';
import type { PriceStream } from './price-stream.ts';
import { type ExtrasBooks, isQuiet, type QuietMove, type QuietRows } from './quiet-rows.ts';
import { deltaRecord, type Timed } from './records.ts';
import { frameRecord } from './stream-prices.ts';

/**
 * `--upstream-mode`: `stream` follows the upstream's WebSocket stream (and polls while it is
 * down); `poll` polls the markets delta; `auto` streams when the upstream's plan allows it and
 * polls for good when it refuses.
 */
export type FollowMode = 'auto' | 'stream' | 'poll';

/** How long a `stream` mirror refused by the upstream waits before it asks again. */
const REFUSED_RETRY_MS = 30_000;

/** One price move of a turn: its event and the record it makes (undefined: read the event whole). */
export interface Move {
  eventId: string;
  record: Timed | undefined;
  /**
   * A polled row whose record holds the extras the mirror had, where the upstream's row may hold
   * others: a book that carries liquidity or source ids, or a row that may have moved only them.
   */
  extras: boolean;
}

export interface PriceTurn {
  /** In the upstream's log order. */
  moves: Move[];
  /** Markets the rows read beside the stream name, whose extras may differ: read again for them. */
  quiet: QuietMove[];
  /** The consumer's cursor was refused: it rebuilt from a fresh snapshot, which the mirror hands on. */
  resynced: boolean;
}

export interface PriceFollowOptions {
  mode: FollowMode;
  markets: MarketsDeltaConsumer;
  board: Board;
  /** The upstream's stream; none in `poll` mode. */
  stream: PriceStream | undefined;
  /** The rows the stream does not send, read beside it. */
  quiet: QuietRows;
  /** The books whose prices carry liquidity or source ids: those `quiet` reads, and polls check. */
  extrasBooks: ExtrasBooks;
  pollMs: number;
  now: () => number;
  /** A line for the server's log: `warn` for a fall back to polling. */
  log: (level: 'info' | 'warn', line: string) => void;
}

/**
 * Where the mirror's price moves come from, turn by turn: the upstream's stream while it is live,
 * else a poll of the markets delta. Both share one position, the markets consumer's cursor: the
 * stream opens with it as `resume_from`, each streamed change moves it on (`advance`), and a change
 * at or below it is one a poll already read. So the mirror goes from one to the other and back
 * without a hole or a row applied twice. The rows the stream does not send (a change of liquidity
 * or source id alone) are read beside it (`QuietRows`) at the event delta's cadence, from where
 * the stream took over, and once more when it stops. Each change of course is said in the log once.
 */
export class PriceFollow {
  /** The upstream's stream; none in `poll` mode, nor once an `auto` mirror was refused one. */
  private stream: PriceStream | undefined;
  private wasLive = false;
  private brokeSaid = false;
  private refusal: string | undefined;
  /** When the event delta is due again while the stream is live (polling, every turn polls it). */
  private eventsDue = 0;

  constructor(private readonly o: PriceFollowOptions) {
    this.stream = o.stream;
  }

  /** Whether prices come from the stream now. */
  get streaming(): boolean {
    return this.stream?.state === 'live';
  }

  /** The markets of this turn's `quiet` are applied: the rows read beside the stream need not be read again. */
  quietApplied(): void {
    this.o.quiet.settle();
  }

  /** What /readyz says of the stream: in `stream` mode, an upstream that refuses it. */
  get problem(): string | undefined {
    return this.o.mode === 'stream' && this.refusal !== undefined
      ? `the upstream refuses streams to this key (${this.refusal}); polling meanwhile`
      : undefined;
  }

  /**
   * This turn's price moves: the stream's changes, then, unless it is live, a poll of the markets
   * delta (its moves whose extras may differ marked `extras`); and the markets the rows read beside
   * a stream name, to read again for their liquidity or source ids.
   */
  async turn(signal: AbortSignal): Promise<PriceTurn> {
    const s = this.stream;
    const m = this.o.markets;
    const q = this.o.quiet;
    const moves: Move[] = [];
    const quiet: QuietMove[] = [];
    if (s) {
      this.notice(s);
      if (s.state === 'gap') {
        // The upstream no longer has the changes after the position held: a fresh snapshot.
        await m.bootstrap(signal);
        s.retryAfter(0);
        q.stop();
        return { moves, quiet, resynced: true };
      }
      // The stream takes over from the position polled up to: the quiet rows after it are read beside it.
      if (s.state === 'live' && !q.following && m.cursor !== undefined) q.from(m.cursor);
      for (const { position, data } of s.take()) {
        if (m.cursor !== undefined && BigInt(position.id) <= BigInt(m.cursor)) continue;
        moves.push({ eventId: data.event_id, record: frameRecord(this.o.board, data), extras: false });
        m.advance(String(position.id));
      }
      if (s.state === 'live') {
        if (this.eventsDueNow()) quiet.push(...(await q.read(this.o.extrasBooks, signal)));
        return { moves, quiet, resynced: false };
      }
    }
    // The stream stopped: its quiet rows up to where it took the cursor, then the poll reads every row.
    if (q.following) {
      if (q.position !== m.cursor) quiet.push(...(await q.read(this.o.extrasBooks, signal, true)));
      else q.stop();
    }
    const polled = await m.poll(signal);
    for (const row of polled.rows) {
      const record = deltaRecord(row, heldPrice(this.o.board, row));
      // A quiet row of any book: a book's first liquidity comes so.
      const extras = record !== undefined && (isQuiet(row) || this.o.extrasBooks.any.has(row.affiliate_id));
      moves.push({ eventId: row.event_id, record, extras });
    }
    // A stream resumes where this poll ended; the epoch is known once a poll has answered.
    if (s?.canOpen && m.cursor !== undefined && m.epoch !== undefined) {
      s.open({ id: Number(m.cursor), epoch: m.epoch });
    }
    return { moves, quiet, resynced: polled.resynced };
  }

  /** Whether the event delta is due this turn: every turn while polling, every `spacingMs` while streaming. */
  eventsDueNow(): boolean {
    return !this.streaming || this.o.now() >= this.eventsDue;
  }

  /** The event delta was polled: the next is due in `spacingMs`. */
  eventsPolled(spacingMs: number): void {
    this.eventsDue = this.o.now() + spacingMs;
  }

  /**
   * The wait before the next turn while a stream opens or is live: `ms` at most, until it goes live
   * or ends, or (live) until a change arrives or the event delta is due. Undefined without one: the
   * mirror sleeps `ms`.
   */
  rest(ms: number, signal: AbortSignal): Promise<void> | undefined {
    const s = this.stream;
    if (s?.state === 'live') return s.rest(Math.max(0, Math.min(ms, this.eventsDue - this.o.now())), signal);
    return s?.state === 'opening' ? s.rest(ms, signal) : undefined;
  }

  /** Closes the stream (the mirror stops, or may not spend more); the next turn may open another. */
  close(): void {
    this.stream?.close();
  }

  /** Says each change of course once: live, broken, refused. */
  private notice(s: PriceStream): void {
    if (s.state === 'live') {
      if (!this.wasLive || this.brokeSaid) {
        this.o.log('info', "following the upstream's stream (/api/v2/ws, markets channel)");
      }
      this.wasLive = true;
      this.brokeSaid = false;
      this.refusal = undefined;
    } else if (s.state === 'refused') {
      const first = this.refusal === undefined;
      this.refusal = s.reason;
      if (this.o.mode === 'auto') {
        this.o.log(
          'warn',
          `the upstream refuses streams to this key (${s.reason}): following it by polling the markets delta every ${this.o.pollMs} ms`,
        );
        // For good: a plan does not gain streams while the mirror runs (a restart asks again).
        this.stream = undefined;
      } else {
        if (first) {
          this.o.log(
            'warn',
            `the upstream refuses streams to this key (${s.reason}): polling the markets delta meanwhile, asking again every ${REFUSED_RETRY_MS / 1000} s`,
          );
        }
        s.retryAfter(REFUSED_RETRY_MS);
      }
    } else if (s.state === 'gap') {
      this.o.log('info', `the upstream cannot resume its stream (${s.reason}): taking a fresh snapshot`);
      this.brokeSaid = true;
    } else if (s.state === 'closed' && this.wasLive && !this.brokeSaid && s.reason !== '') {
      this.o.log(
        'warn',
        `the upstream's stream broke (${s.reason}): polling the markets delta every ${this.o.pollMs} ms until it reconnects`,
      );
      this.brokeSaid = true;
    }
  }
}
