import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { catalogAnswers } from '../helpers/catalog-answers.ts';
import { startTestServer } from '../helpers/server.ts';

/** The listing answers as the code's tables gave them before the catalog became rows. */
const before = JSON.parse(readFileSync(new URL('../fixtures/catalog-answers.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

/** Paths whose answers differ, with both hashes: an empty list when every answer is the same. */
function differences(now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...paths].filter((p) => before[p] !== now[p]).map((p) => `${p}: ${before[p]} -> ${now[p]}`);
}

test('a simulator store lists the catalog byte for byte as the code tables did', async () => {
  // Motor racing only: futures boards and no games, so no team carries a record to list.
  const s = await startTestServer({ sports: [41] });
  try {
    assert.deepEqual(differences(await catalogAnswers(s)), []);
  } finally {
    await s.close();
  }
});

test('an ingest store starts with the same catalog', async () => {
  const s = await startTestServer({ feed: 'ingest' });
  try {
    assert.deepEqual(differences(await catalogAnswers(s)), []);
  } finally {
    await s.close();
  }
});
