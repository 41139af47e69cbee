/**
 * The streams' error catalogue: every in-band code with what it means, the snapshot_error codes,
 * and the close codes with their reasons. docs/spec-gaps.md (WebSocket streams) lists the same.
 */

/** Codes of `{type: "error", id, code, message}`. */
export const ERROR_CODES = {
  /** Not JSON, not an object, an unknown action, a missing or bad id, invalid params. */
  bad_request: 'the message could not be understood',
  /** A channel that does not exist. */
  unknown_channel: 'no such channel',
  /** The plan lacks the channel's entitlement (spec: in-band `forbidden`). */
  forbidden: 'the plan does not include this channel',
  /** subscribe with an id this connection already uses. */
  duplicate_id: 'a subscription with this id exists',
  /** unsubscribe, snapshot or resync of an id this connection does not have. */
  unknown_subscription: 'no subscription with this id',
  /** The plan's subscriptions per connection are all in use. */
  subscription_limit: 'subscription limit reached',
  /** A subscription's queue could not take a frame: the connection closes next. */
  buffer_overflow: 'the client fell behind',
  /** This server missed part of the change log: the connection closes; resume from the last position. */
  stream_gap: 'the server missed part of the change log',
  /** The server failed while handling the message; the connection stays open. */
  internal_error: 'the message could not be handled',
  /** The key was revoked or has expired: the connection closes (policy_violation:key_revoked). */
  key_revoked: 'the key no longer exists or has expired',
  /** The page session it was opened with was signed out or expired: the connection closes (policy_violation:session_ended). */
  session_ended: 'the session was signed out or has expired',
  /** A cap or the account's budget was reached while streaming: the connection closes (policy_violation:limit_reached). */
  limit_reached: 'a data point cap or the budget was reached',
  /** More messages than the connection's rate allows (MESSAGE_RATE in intake.ts): the connection closes next. */
  rate_limited: 'too many messages',
  /** A message longer than MAX_CLIENT_MESSAGE: the connection closes next. */
  message_too_large: 'the message is too large',
  /** JSON nested deeper than MAX_MESSAGE_DEPTH: the connection closes next. */
  message_too_deep: 'the message is nested too deeply',
  /** A binary message (messages are JSON text): the connection closes next. */
  unsupported_data: 'messages are JSON text',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes of `{type: "snapshot_error", id, code, message}`: the subscription stays and streams. */
export const SNAPSHOT_ERROR_CODES = {
  /** The stats channel has no snapshot (spec). */
  unsupported_snapshot: 'stats have no snapshot: fetch the REST box scores',
  /** No bounded scope: event_ids, or sport_ids with date (plays: event_ids; futures: sport_ids). */
  unbounded_scope: 'a snapshot needs a bounded scope',
  /** The scope is bounded but not valid for the channel (futures with a date, or events of several sports). */
  invalid_scope: 'the scope does not fit the channel',
  /** resume_from cannot be served: another epoch, or older than the log the server keeps. */
  snapshot_required: 'resume is not possible: take a snapshot',
  /** The snapshot could not be read (a store failure): retry it. */
  snapshot_failed: 'the snapshot could not be made',
  /** Too many resumes replay at once (in the process or for the key): resume again after `retry_after` seconds. */
  resume_busy: 'too many resumes at once: retry shortly',
} as const;
export type SnapshotErrorCode = keyof typeof SNAPSHOT_ERROR_CODES;

/** An in-band error raised while handling a client message. */
export class StreamError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A snapshot or resume refused; the subscription keeps streaming. */
export class SnapshotError extends Error {
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
    /** Seconds after which the same request may succeed (`resume_busy`). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Close codes and reasons the server sends. */
export const CLOSES = {
  /** Spec: a subscription or fan-out queue could not accept a frame. */
  overflow: { code: 1013, reason: 'buffer_overflow:reconnect_and_catchup' },
  /** The server missed part of the change log (another node's bus): resume from the last position. */
  gap: { code: 1012, reason: 'stream_gap:reconnect_and_resume' },
  /** The server is shutting down. */
  shutdown: { code: 1001, reason: 'server_shutdown' },
  /**
   * The key may no longer stream: revoked or expired (`policy_violation:key_revoked`), its plan
   * without streams (`policy_violation:forbidden`), a cap or the budget reached
   * (`policy_violation:limit_reached`), or the page session that opened it ended
   * (`policy_violation:session_ended`). The reason names which; an in-band error precedes it.
   */
  policy: { code: 1008, reason: 'policy_violation' },
  /** Past the message rate (RFC 6455 1008, policy violation): reconnect and send more slowly. */
  rateLimited: { code: 1008, reason: 'rate_limited' },
  /** A message past MAX_CLIENT_MESSAGE (RFC 6455 1009, message too big). */
  tooLarge: { code: 1009, reason: 'message_too_large' },
  /** JSON nested past MAX_MESSAGE_DEPTH (1008, policy violation). */
  tooDeep: { code: 1008, reason: 'message_too_deep' },
  /** A binary message (RFC 6455 1003, unsupported data). */
  binary: { code: 1003, reason: 'unsupported_data' },
} as const;
