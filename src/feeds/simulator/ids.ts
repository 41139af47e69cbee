import { createHash } from 'node:crypto';

/** Identifiers the simulator hands out: stable for a seed, in the formats the spec shows. */

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** event_id: 32 lowercase hex characters from seed, sport, UTC date and the day's index. */
export function eventId(seed: number, sportId: number, date: string, index: number): string {
  return md5(`oddsbase-event:${seed}:${sportId}:${date}:${index}`);
}

/** event_uuid: a different value in 8-4-4-4-12 form (version 4, RFC 4122 variant bits). */
export function eventUuid(eventIdHex: string): string {
  const h = md5(`oddsbase-uuid:${eventIdHex}`);
  const variant = ((Number.parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  const parts = [h.slice(0, 8), h.slice(8, 12), `4${h.slice(13, 16)}`, variant + h.slice(17, 20), h.slice(20, 32)];
  return parts.join('-');
}

/** A decimal string of `digits` (at most 36) digits derived from the parts, without a leading zero. */
export function numericId(digits: number, ...parts: readonly (string | number)[]): string {
  const text = BigInt(`0x${md5(parts.join('|'))}`)
    .toString()
    .padStart(38, '7');
  return `${(Number(text[0]) % 9) + 1}${text.slice(2, digits + 1)}`;
}

/** The prediction market's event slug, e.g. "nba-bos-lal-2026-11-23" (game 2 of a doubleheader: "-g2"). */
export function eventSlug(leagueKey: string, away: string, home: string, date: string, game?: number): string {
  const clean = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return `${clean(leagueKey)}-${clean(away)}-${clean(home)}-${date}${game === 2 ? '-g2' : ''}`;
}
