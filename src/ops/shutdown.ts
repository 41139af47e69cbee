import type { FastifyInstance } from 'fastify';

/**
 * Closes the app: it stops accepting connections at once and closes idle keep-alive ones; requests
 * in flight get `graceMs` to finish, after which their connections are closed too. Requests that
 * arrive on an open connection meanwhile are answered 503 with `Connection: close`.
 */
export async function closeApp(app: FastifyInstance, graceMs: number): Promise<void> {
  const force = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * A repeat of the same signal before the event loop has turned for this many ms since the first is
 * the same one delivered twice, not a second request: Ctrl-C at a terminal signals the whole
 * process group, and `npm start` forwards the signal it got to the server as well, so the server
 * gets two SIGINTs a few ms apart.
 */
export const SAME_SIGNAL_MS = 500;

const TICK_MS = 50;

/**
 * ms of event-loop turns since it was called, counted in 50 ms ticks of a timer: a loop blocked by
 * the close's own work (the board snapshot) counts one tick for the whole block, so a repeat that
 * arrived in the first ms but is handled only after the block still reads as early.
 */
export function loopClock(): () => number {
  let ticks = 0;
  setInterval(() => ticks++, TICK_MS).unref();
  return () => ticks * TICK_MS;
}

/**
 * The handler of SIGTERM and SIGINT: the first closes the server gracefully (`close`), then exits 0,
 * or 1 if the close failed. Another signal while it closes exits at once, with 128 + the signal's
 * number, unless it is the same signal within `SAME_SIGNAL_MS` of the loop's turns (`clock`, started
 * at the first signal) after the first.
 */
export function signalHandler(
  close: () => Promise<void>,
  say: (line: string) => void,
  exit: (code: number) => void,
  clock: () => () => number = loopClock,
): (signal: NodeJS.Signals) => void {
  let first: { signal: NodeJS.Signals; since: () => number } | undefined;
  return (signal) => {
    if (first) {
      if (signal === first.signal && first.since() < SAME_SIGNAL_MS) return;
      say(`received ${signal} again, exiting now`);
      exit(SIGNAL_EXIT[signal] ?? 1);
      return;
    }
    first = { signal, since: clock() };
    say(`received ${signal}, closing (send it again to exit at once)`);
    close().then(
      () => exit(0),
      (err: unknown) => {
        say(`error while closing: ${String(err)}`);
        exit(1);
      },
    );
  };
}

/** Installs `signalHandler` for SIGTERM and SIGINT. */
export function exitOnSignals(
  close: () => Promise<void>,
  say: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const onSignal = signalHandler(close, say, exit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
