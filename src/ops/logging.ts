import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions } from 'pino';

/** Where log lines go: anything that takes one line at a time (a stream, pino's destination). */
export interface LogStream {
  write(line: string): unknown;
}

/**
 * Where the server's log lines go. By default JSON lines on standard output, written asynchronously:
 * a busy server batches lines into few writes instead of waiting on one write per line (pino
 * flushes what is left when the process exits). With `pretty`, lines formatted for a person at a
 * terminal (pino-pretty is loaded only then: 0.1-0.3 s of every start otherwise).
 */
export async function logDestination(pretty: boolean): Promise<LogStream> {
  if (pretty) {
    const { default: pinoPretty } = await import('pino-pretty');
    return pinoPretty({
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:standard',
      ignore: 'pid,hostname',
    });
  }
  return pino.destination({ dest: 1, sync: false });
}

/**
 * Fastify's child logger factory for when requests are not logged one by one: fastify makes a child
 * logger (bound to the request id) for every request, about half a microsecond each, and then almost
 * none is used. This one makes it on the request's first log line, which comes out the same.
 */
export const lazyChildLogger = (
  parent: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger => new LazyChild(parent, bindings, opts);

class LazyChild implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  private real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.opts);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.opts.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]): void {
    (this.real().fatal as (...a: unknown[]) => void)(...args);
  }

  error(...args: unknown[]): void {
    (this.real().error as (...a: unknown[]) => void)(...args);
  }

  warn(...args: unknown[]): void {
    (this.real().warn as (...a: unknown[]) => void)(...args);
  }

  info(...args: unknown[]): void {
    (this.real().info as (...a: unknown[]) => void)(...args);
  }

  debug(...args: unknown[]): void {
    (this.real().debug as (...a: unknown[]) => void)(...args);
  }

  trace(...args: unknown[]): void {
    (this.real().trace as (...a: unknown[]) => void)(...args);
  }

  silent(...args: unknown[]): void {
    (this.real().silent as (...a: unknown[]) => void)(...args);
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, opts);
  }
}
