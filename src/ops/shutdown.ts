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
 * SIGTERM and SIGINT close the server gracefully (`close`), then exit 0, or 1 if the close failed.
 * A second signal while it closes exits at once, with 128 + the signal's number.
 */
export function exitOnSignals(
  close: () => Promise<void>,
  say: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      say(`received ${signal} again, exiting now`);
      exit(SIGNAL_EXIT[signal] ?? 1);
      return;
    }
    closing = true;
    say(`received ${signal}, closing (send it again to exit at once)`);
    close().then(
      () => exit(0),
      (err: unknown) => {
        say(`error while closing: ${String(err)}`);
        exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
