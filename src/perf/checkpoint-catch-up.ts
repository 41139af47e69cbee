import { pick } from './switch.ts';

/**
 * After how many change rows the embedded store's writer waits, before its next commit, for its
 * checkpoint thread to copy the whole write-ahead log into the database file (SqliteStore.commit,
 * Checkpointer.catchUp). Under a steady stream of commits the thread's timed checkpoints never catch
 * up with the writer, so the log never starts over; it grew to the writer's own threshold (10,000
 * pages) and the writer then checkpointed inside a commit, with two fsyncs on the thread that serves
 * requests (up to 57 ms each measured under load, about 5% of an ingest run's wall time). Waiting for
 * the thread instead leaves the loop free meanwhile (it reads and checks the next batches), and the
 * next commit starts the log over. The trick: 20,000 rows, about 20 MB of log for price rows, half
 * the writer's threshold. The plain twin never waits: the writer checkpoints itself as before.
 */
export const CATCH_UP_CHANGES: number = pick(20_000, Number.POSITIVE_INFINITY);
