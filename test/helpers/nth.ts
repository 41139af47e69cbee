import assert from 'node:assert/strict';

/** The element at `index` of `list`; fails the test, naming the index, when there is none. */
export function nth<T>(list: readonly T[], index: number): T {
  const item = list[index];
  assert.ok(item !== undefined, `no element at index ${index} of a list of ${list.length}`);
  return item;
}
