/**
 * The one switch of the speed wall: with `ODDSBASE_PLAIN=1` in the environment every trick in
 * src/perf/ runs its plain twin instead (the straightforward code it must agree with), so a
 * suspected trick can be ruled in or out on a running server and the tests can run both.
 * Read once at load: a trick is chosen when its module is, never per call.
 */
export const PLAIN = process.env.ODDSBASE_PLAIN === '1';

/** The trick, or its plain twin when the switch says so. */
export function pick<T>(fast: T, plain: T): T {
  return PLAIN ? plain : fast;
}
