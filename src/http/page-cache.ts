/**
 * Serialised delta pages. A full page (as many rows as the limit, with more after it) holds committed
 * rows only, so the same cursor and filters give the same bytes forever; the last page is keyed by
 * the head too and so lasts until the next commit. Clients that follow the feed poll the same
 * cursors; they are served from here. Bounded by bytes, least recently used first out.
 */
export class PageCache {
  private readonly pages = new Map<
    string,
    { parts: readonly Buffer[]; bytes: number; lastId: number; points: number }
  >();
  private bytes = 0;

  constructor(private readonly maxBytes = 24 * 1024 * 1024) {}

  /** A page whose rows all lie at or below `visibleHead`. */
  get(key: string, visibleHead: number): { parts: readonly Buffer[]; points: number } | undefined {
    const hit = this.pages.get(key);
    if (!hit || hit.lastId > visibleHead) return undefined;
    // Refresh its place: the least recently used pages go first.
    this.pages.delete(key);
    this.pages.set(key, hit);
    return hit;
  }

  set(key: string, parts: readonly Buffer[], lastId: number, points: number): void {
    let bytes = 0;
    for (const p of parts) bytes += p.length;
    if (bytes > this.maxBytes / 4) return;
    const old = this.pages.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.pages.delete(key);
    }
    this.pages.set(key, { parts, bytes, lastId, points });
    this.bytes += bytes;
    for (const [k, v] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.pages.delete(k);
      this.bytes -= v.bytes;
    }
  }
}
