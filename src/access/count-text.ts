/**
 * The decimal text of a count that changes from one request to the next (the usage headers, a
 * composed page's length).
 * `String(n)` gives the same text, but V8 keeps what it returns in its number-string cache, which
 * lives in the old generation: the text of each new count then outlives young collections and is
 * promoted, and at thousands of requests a second that garbage (about 60 bytes a request) filled
 * the old generation and started a full collection every 10-30 s under a polling load
 * (docs/benchmarks.md, 2026-11-28 evening). JSON.stringify writes the same digits for a finite
 * number without that cache, so the text dies young with its response.
 */
export function countText(n: number): string {
  return JSON.stringify(n);
}
