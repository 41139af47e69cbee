export * from './client.ts';
export * from './errors.ts';
export * from './event-delta.ts';
export * from './market-families.ts';
export * from './markets-delta.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retry.ts';
export {
  type Query,
  type QueryValue,
  queryString,
  type Reply,
  type RequestOptions,
  type RetryEvent,
  type TransportOptions,
  Transport,
} from './transport.ts';
export type * from './types.ts';
export * from './usage.ts';
export * from './odds.ts';
export * from './period-scores.ts';
export * from './feed.ts';
export * from './game-stats.ts';
export * from './multiplex.ts';
export {
  ReconnectingSocket,
  type LivenessOptions,
  type Timers,
  type WebSocketConstructor,
  type WebSocketLike,
} from './socket.ts';
export * from './streams.ts';
