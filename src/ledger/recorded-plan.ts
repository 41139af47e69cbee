import type { Board } from '../board/board.ts';
import { marketKey } from '../board/event-state.ts';
import { type Change, type ChangeRecord, changesEvent, decodeChange } from '../changelog/change.ts';
import { withHeader, withScore } from '../domain/event-header.ts';
import type { EventInfo } from '../domain/types.ts';
import type { Commit, EventRecord, MarketRecord } from '../store/store.ts';
import { LedgerError } from './ledger-errors.ts';

/** What rows of a recorded log commit, and where the log stands after them. */
export interface RecordedPlan {
  /** The rows decoded, one per row, for `applyChange`. */
  changes: Change[];
  commit: Commit;
  /** Events touched, with the last id that touched each. */
  touched: Map<string, number>;
  /** The last row's id and commit time. */
  head: number;
  lastMs: number;
  /** The ids to hand out after the rows' market instances and prices. */
  nextMarketId: number;
  nextPriceId: number;
}

/**
 * Checks that recorded rows continue the log of `board` (ids above its head, commit times not
 * before `lastCommitMs`, events known or made by the rows) and derives the event records and
 * market instances the store keeps beside them, as a batch's plan derives them.
 */
export function planRecorded(
  board: Board,
  rows: readonly ChangeRecord[],
  lastCommitMs: number,
  nextMarketId: number,
  nextPriceId: number,
): RecordedPlan {
  const changes: Change[] = [];
  const infos = new Map<string, EventInfo>();
  /** Events touched, with the last id that touched each. */
  const touched = new Map<string, number>();
  const markets: MarketRecord[] = [];
  const made = new Set<string>();
  let head = board.head;
  let lastMs = lastCommitMs;
  let nextMarket = nextMarketId;
  let nextPrice = nextPriceId;
  for (const row of rows) {
    if (row.id <= head) throw new LedgerError(`recorded change ${row.id} is not above the log's head ${head}`);
    if (row.committed_ms < lastMs) {
      throw new LedgerError(`recorded change ${row.id} was committed before the change it follows`);
    }
    head = row.id;
    lastMs = row.committed_ms;
    let change: Change;
    try {
      change = decodeChange(row);
    } catch (err) {
      throw new LedgerError(`recorded change ${row.id} cannot be read: ${(err as Error).message}`);
    }
    changes.push(change);
    if (!changesEvent(row.kind)) continue;
    const info = infos.get(row.event_id) ?? board.events.get(row.event_id)?.info;
    if (change.kind === 'event') infos.set(row.event_id, withHeader(info, change.header));
    else if (!info) throw new LedgerError(`recorded change ${row.id} names an unknown event: ${row.event_id}`);
    else infos.set(row.event_id, change.kind === 'score' ? withScore(info, change) : info);
    touched.set(row.event_id, row.id);
    if (change.kind !== 'price') continue;
    const f = change.fact;
    const key = marketKey(f.market_id, f.period_id);
    if (!board.events.get(f.event_id)?.markets.has(key) && !made.has(`${f.event_id}|${key}`)) {
      made.add(`${f.event_id}|${key}`);
      markets.push({
        id: f.market_instance_id,
        event_id: f.event_id,
        market_id: f.market_id,
        period_id: f.period_id,
      });
      nextMarket = Math.max(nextMarket, f.market_instance_id + 1);
    }
    nextPrice = Math.max(nextPrice, f.price_id + 1);
  }
  const events: EventRecord[] = [];
  for (const [eventId, version] of touched) {
    const info = infos.get(eventId)!;
    events.push({
      event_id: eventId,
      sport_id: info.sport_id,
      event_date: info.event_date,
      info: JSON.stringify(info),
      change_id: version,
    });
  }
  return {
    changes,
    commit: { changes: [...rows], events, markets },
    touched,
    head,
    lastMs,
    nextMarketId: nextMarket,
    nextPriceId: nextPrice,
  };
}
