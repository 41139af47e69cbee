// The channel names on their own, so the message schemas (and the typed client) need no frame code.

/**
 * The channels of the multiplexed endpoint (docs/spec-gaps.md: WebSocket streams). The live-state
 * channel is `live_game_state`, the Event field's name; `game_state`, its first name, stays a twin.
 */
export const CHANNELS = [
  'markets',
  'scores',
  'plays',
  'stats',
  'live',
  'futures',
  'live_game_state',
  'game_state',
] as const;
export type Channel = (typeof CHANNELS)[number];

export const isChannel = (v: unknown): v is Channel => (CHANNELS as readonly unknown[]).includes(v);
