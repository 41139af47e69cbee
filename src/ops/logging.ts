import pino from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogStream } from '../http/app.ts';

/**
 * Where the server's log lines go. By default JSON lines on standard output, written asynchronously:
 * a busy server batches lines into few writes instead of waiting on one write per line (pino
 * flushes what is left when the process exits). With `pretty`, lines formatted for a person at a
 * terminal.
 */
export function logDestination(pretty: boolean): LogStream {
  if (pretty) {
    return pinoPretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:standard', ignore: 'pid,hostname' });
  }
  return pino.destination({ dest: 1, sync: false });
}
