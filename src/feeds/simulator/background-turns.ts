import { setImmediate as loopTurn, setTimeout as pause } from 'node:timers/promises';

/**
 * The most of the loop's time the background part of a first fill takes while the loop has other
 * work (requests, the live feed): given turns of the loop alone it took about 85% of it, and the
 * events snapshot served 919 requests a second with a p99 of 836 ms against 6,367 after it
 * (docs/benchmarks.md).
 */
export const BACKGROUND_SHARE = 0.25;

/** A turn that came back later than this found other work on the loop. */
const BUSY_TURN_MS = 1;

/**
 * The turns a background job gives the event loop between its slices of work. When a turn finds
 * the loop idle, the job goes straight on; when the loop had other work, the job then waits long
 * enough that its last slice is at most `share` of the time, so the others get the rest.
 */
export class BackgroundTurns {
  private workFrom = performance.now();

  constructor(private readonly share = BACKGROUND_SHARE) {}

  /** Gives the loop a turn, and more while it is busy. */
  readonly turn = async (): Promise<void> => {
    const turned = performance.now();
    const worked = turned - this.workFrom;
    await loopTurn();
    if (performance.now() - turned >= BUSY_TURN_MS) await pause((worked * (1 - this.share)) / this.share);
    this.workFrom = performance.now();
  };
}
