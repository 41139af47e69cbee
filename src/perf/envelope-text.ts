/**
 * The envelopes around lists serialised beforehand (event views, Delta rows, plays): the text up to
 * and including the list's `[`, written by hand; `]}` closes both. Their plain twins, beside each
 * response schema, serialise the envelope with an empty list and cut it there (`listOpen`). Same
 * bytes (test/unit/schema-twins.test.ts).
 */

/** The meta of a cursor page: the markets delta, /api/v2/delta, V1's delta. */
export interface PageMeta {
  delta_last_id: string;
  count: number;
  has_more: boolean;
  epoch: string;
}

/** The meta of a page of plays. */
export interface PlaysMeta {
  event_id: string;
  count: number;
  last_sequence: number;
  next_before_sequence: number | null;
}

/** `{"meta":{"delta_last_id":"<head>"},"events":[`: the V2 and V1 events snapshots. */
export function eventsOpen(head: number): string {
  return `{"meta":{"delta_last_id":"${head}"},"events":[`;
}

/** A cursor page's envelope up to its list (`deltas` or `events`). */
export function pageOpen(list: 'deltas' | 'events'): (meta: PageMeta) => string {
  return (m) =>
    `{"meta":{"delta_last_id":${JSON.stringify(m.delta_last_id)},"count":${m.count},"has_more":${m.has_more},` +
    `"epoch":${JSON.stringify(m.epoch)}},"${list}":[`;
}

/** A page of plays up to its list. */
export function playsOpen(m: PlaysMeta): string {
  return (
    `{"meta":{"event_id":${JSON.stringify(m.event_id)},"count":${m.count},"last_sequence":${m.last_sequence},` +
    `"next_before_sequence":${m.next_before_sequence}},"plays":[`
  );
}

/** For the plain twins: an envelope serialised with an empty list last, cut after the list's `[`. */
export function listOpen(text: string): string {
  if (!text.endsWith('[]}')) throw new Error(`the list is not the envelope's last field: ${text}`);
  return text.slice(0, -2);
}
