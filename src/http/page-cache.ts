import type { ByteBudget } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';

interface Page {
  parts: readonly Buffer[];
  points: number;
}

/** Heap bytes of a Page and its parts array besides the Buffers (measured: 115 with two parts). */
const PAGE_BYTES = 112;
/** Heap bytes of one Buffer object, its bytes aside (measured: 185). */
const BUFFER_BYTES = 184;

/**
 * Serialised delta pages. A full page (as many rows as the limit, with more after it) holds committed
 * rows only, so the same cursor and filters give the same bytes forever; the last page is keyed by
 * the head too and so lasts until the next commit. Clients that follow the feed poll the same
 * cursors; they are served from here. A use of the one fresh cache (src/perf/fresh-cache.ts), whose
 * token is the page's last row id: current for a reader whose visible head covers it. Drawn from the
 * shared byte budget, least recently used out first. As the other caches, a page is kept from its
 * second read, the first leaving a mark: clients catching up from old cursors read each page once,
 * and 500 of them at distinct cursors (bench/bounded.ts) kept about 30 MB of such pages that no one
 * read again.
 */
export class PageCache {
  private readonly pages: FreshCache<string, number, Page>;

  constructor(budget: ByteBudget, keeping: Keeping = KEEPING) {
    this.pages = freshCache(
      budget,
      { fromSecond: true, current: (lastId, visibleHead) => lastId <= visibleHead },
      keeping,
    );
  }

  /** A page whose rows all lie at or below `visibleHead`. */
  get(key: string, visibleHead: number): Page | undefined {
    return this.pages.get(key, visibleHead);
  }

  set(key: string, parts: readonly Buffer[], lastId: number, points: number): void {
    if (!this.pages.asked(key)) {
      // Leaves the key's mark: the page itself is kept from its next read.
      this.pages.set(key, lastId, { parts, points }, 0);
      return;
    }
    // A copy of its own, as one allocation cut where the parts were (they are written a turn apart):
    // a page read from the store may lie in memory lent for one response only.
    const own = Buffer.concat(parts);
    const kept: Buffer[] = [];
    let bytes = PAGE_BYTES + own.length;
    for (let at = 0, i = 0; i < parts.length; at += parts[i]!.length, i++) {
      kept.push(own.subarray(at, at + parts[i]!.length));
      bytes += BUFFER_BYTES;
    }
    this.pages.set(key, lastId, { parts: kept, points }, bytes);
  }
}
