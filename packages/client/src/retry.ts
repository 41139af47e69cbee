/**
 * The spec's retry guidance as numbers (Errors: retry guidance; 503 stats_policy_unsupported).
 * Delays use "equal jitter": half the exponential step plus a random share of the other half, so
 * clients that failed together spread out but never retry at once.
 */
export interface RetryOptions {
  /** 500, 502, 503 and network failures: retries after the first try (spec: about three). */
  serverRetries: number;
  /** First backoff step for those; doubled per retry up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Burst 429s (`Rate limit exceeded`): retries, each after the answer's Retry-After. */
  burstRetries: number;
  /** A burst 429 whose Retry-After is longer than this is not waited out but thrown. */
  maxRetryAfterMs: number;
  /** 503 stats_policy_unsupported: bounded exponential backoff, no Retry-After to honour. */
  statsRetries: number;
  statsBaseDelayMs: number;
  statsMaxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  serverRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  burstRetries: 3,
  maxRetryAfterMs: 10_000,
  statsRetries: 5,
  statsBaseDelayMs: 1_000,
  statsMaxDelayMs: 30_000,
};

/** The wait before retry number `attempt` (0 for the first retry). */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const step = Math.min(maxMs, baseMs * 2 ** attempt);
  return step / 2 + random() * (step / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
