import { changesEvent } from '../changelog/change.ts';
import type { ChangeRecord } from '../store/store.ts';
import type { ChangeFeed } from './change-feed.ts';

/** Most change ids one gathering looks at; `hasMore` tells the client to go on from `lastId`. */
export const CHANGED_EVENTS_MAX_SCAN = 500_000;

export interface ChangedEvents {
  /** The latest change of each event, in the order of those changes. */
  latest: ChangeRecord[];
  /** The cursor to continue from. */
  lastId: number;
  hasMore: boolean;
}

/**
 * The events that changed after `afterId` (any kind of row that changes an event), up to `limit` of them, each with its
 * latest change in the range read. Stops before a (limit + 1)th event, so paging from `lastId` never
 * skips an event, and never looks past `visibleHead` (a delayed plan's head).
 */
export async function changedEvents(
  feed: ChangeFeed,
  from: { afterId: number; sportId?: number },
  limit: number,
  visibleHead: number,
): Promise<ChangedEvents> {
  let afterId = from.afterId;
  const scanEnd = afterId + CHANGED_EVENTS_MAX_SCAN;
  const latest = new Map<string, ChangeRecord>();
  let lastId = afterId;
  let hasMore = false;
  scan: for (;;) {
    const read = await feed.read({ pricesOnly: false, afterId, sportId: from.sportId }, 5000, visibleHead);
    for (const row of read.rows) {
      // Futures rows change a futures board, not an event of these feeds.
      if (!changesEvent(row.kind)) continue;
      if (!latest.has(row.event_id) && latest.size === limit) {
        hasMore = true;
        break scan;
      }
      latest.delete(row.event_id);
      latest.set(row.event_id, row);
      lastId = row.id;
    }
    lastId = read.lastId;
    afterId = read.lastId;
    if (!read.hasMore) break;
    if (afterId >= scanEnd) {
      hasMore = true;
      break;
    }
  }
  return { latest: [...latest.values()], lastId, hasMore };
}
