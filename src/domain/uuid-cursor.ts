/**
 * Cursors of /api/v2/delta: UUIDv7 values (RFC 9562) whose 48-bit timestamp is the commit time of a
 * change and whose random fields hold its change id. They sort like the change log (time, then id),
 * and the server can read the id back without a lookup table.
 */

const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-7([0-9a-f]{3})-([89ab][0-9a-f]{3})-([0-9a-f]{12})$/i;

/** The nil UUID: the documented first cursor of the feed, before every change (change id 0). */
export const FIRST_CURSOR = '00000000-0000-0000-0000-000000000000';

export function cursorToUuid(changeId: number, committedMs: number): string {
  const ts = BigInt(Math.max(0, Math.floor(committedMs))) & 0xffff_ffff_ffffn;
  // rand_b is 62 bits: variant bits 10, then the change id (ids stay below 2^53).
  const randB = (0b10n << 62n) | BigInt(changeId);
  const tsHex = ts.toString(16).padStart(12, '0');
  const randBHex = randB.toString(16).padStart(16, '0');
  return `${tsHex.slice(0, 8)}-${tsHex.slice(8, 12)}-7000-${randBHex.slice(0, 4)}-${randBHex.slice(4)}`;
}

/** The change id a cursor holds, or undefined when the text is not one of our UUIDv7 cursors. */
export function uuidToCursor(text: string): number | undefined {
  if (text === FIRST_CURSOR) return 0;
  const m = UUID.exec(text);
  if (!m) return undefined;
  if (m[3] !== '000') return undefined;
  const randB = BigInt(`0x${m[4]}${m[5]}`) & ((1n << 62n) - 1n);
  if (randB > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(randB);
}
