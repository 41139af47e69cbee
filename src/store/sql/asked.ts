/**
 * A search or a judgement written once for both SQL stores is a generator: it yields each question
 * it needs the database to answer and is handed the answer, so that SQLite answers inside its
 * synchronous transactions (`answerNow`) and PostgreSQL inside its awaited ones (`answerAwaited`).
 */

/** Runs `asking`, each question answered at once. */
export function answerNow<Q, A, T>(asking: Generator<Q, T, A>, answer: (q: Q) => A): T {
  let step = asking.next();
  while (!step.done) step = asking.next(answer(step.value));
  return step.value;
}

/** Runs `asking`, each answer awaited. */
export async function answerAwaited<Q, A, T>(asking: Generator<Q, T, A>, answer: (q: Q) => Promise<A>): Promise<T> {
  let step = asking.next();
  while (!step.done) step = asking.next(await answer(step.value));
  return step.value;
}
