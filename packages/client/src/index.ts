export * from './client.ts';
export * from './errors.ts';
export * from './event-delta.ts';
export * from './market-families.ts';
export * from './markets-delta.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retry.ts';
export { type Query, type QueryValue, type Reply, type RequestOptions, type RetryEvent, type TransportOptions, Transport } from './transport.ts';
export type * from './types.ts';
export * from './usage.ts';
