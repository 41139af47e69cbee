/**
 * JSON kept as bytes: views encoded once into memory of their own, and envelopes that copy those
 * bytes instead of joining and encoding text again.
 */

/**
 * Bytes of a kept event view (CachedView in src/http/snapshot-cache.ts) and its Buffer besides the
 * JSON's bytes: 250 measured on the heap and in array buffers, plus the native record and allocator
 * header of the Buffer's memory, which neither shows. The V1 views (v1-event.ts), a little smaller,
 * are charged the same.
 */
export const VIEW_BYTES = 320;

const COMMA = 0x2c;

/**
 * `text` in UTF-8, in memory of its own outside the JavaScript heap: a kept view that survives two
 * young collections is not copied by either, and a slice of node's shared pool would hold the pool whole.
 */
export function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text, 0, 'utf8');
  return bytes;
}

/**
 * `open`, the items separated by commas, then `close`, in one Buffer: the bytes of a JSON array's
 * members between the text before and after them. `open` and `close` must be ASCII.
 */
export function joinJson(open: string, items: readonly Buffer[], close: string): Buffer {
  let length = open.length + close.length + Math.max(0, items.length - 1);
  for (const item of items) length += item.length;
  const body = Buffer.allocUnsafe(length);
  let at = body.write(open, 0, 'latin1');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) body[at++] = COMMA;
    at += items[i]!.copy(body, at);
  }
  body.write(close, at, 'latin1');
  return body;
}
