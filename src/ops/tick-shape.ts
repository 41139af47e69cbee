import { createHook } from 'node:async_hooks';

/** One of node's own `process.nextTick` queue entries, kept for the life of the process. */
let held: object | undefined;

/**
 * Keeps `process.nextTick` on V8's fast path in a process with a large, busy heap.
 *
 * nextTick builds each queue entry with an object literal whose first keys are computed (symbols).
 * V8 keeps the hidden classes such a literal goes through only weakly; when a full collection finds
 * no entry alive (the tick queue is empty between turns), it frees them, the next tick makes new
 * ones, and the literal's feedback in nextTick, which compares classes by identity, turns
 * megamorphic for good. From then on every tick takes the runtime's slow path
 * (`Runtime_DefineKeyedOwnPropertyInLiteral` with a map migration), about four times slower. With
 * the simulator's heap that happens within the first seconds, and http and streams call nextTick
 * several times per request (docs/benchmarks.md, "nextTick's hidden classes"). One entry held alive
 * keeps its classes, so the feedback stays monomorphic. Call it before the heap grows.
 */
export function holdTickShape(): void {
  if (held) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') held ??= resource;
    },
  });
  hook.enable();
  process.nextTick(() => {});
  hook.disable();
}
