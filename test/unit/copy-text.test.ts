import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANGE_FIELDS, changeColumns } from '../../src/store/sql/changes.ts';
import { POSTGRES } from '../../src/store/sql/dialect.ts';
import { COPY_COLUMNS, copyRows, copyText } from '../../src/store/postgres/copy-text.ts';
import type { ChangeRecord } from '../../src/store/store.ts';
import { playRow, priceRow } from '../contract/fixtures.ts';

/**
 * A line of COPY's text format read as PostgreSQL reads it (COPY, "Text Format"): fields split at
 * tabs, `\N` alone is null, and a backslash sequence stands for its character.
 */
function readLine(line: string): (string | null)[] {
  const named: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  return line.split('\t').map((field) => {
    if (field === '\\N') return null;
    return field.replace(/\\(.)/g, (_, c: string) => named[c] ?? c);
  });
}

/** Lines of COPY data: each ends with a newline, and no raw newline is inside one. */
function readLines(data: string): (string | null)[][] {
  assert.ok(data.endsWith('\n'));
  return data.slice(0, -1).split('\n').map(readLine);
}

test('COPY text: a backslash, tab, newline and carriage return are escaped; other texts are kept', () => {
  assert.equal(copyText('a\\b'), 'a\\\\b');
  assert.equal(copyText('a\tb'), 'a\\tb');
  assert.equal(copyText('a\nb'), 'a\\nb');
  assert.equal(copyText('a\rb'), 'a\\rb');
  assert.equal(copyText('\\N'), '\\\\N');
  assert.equal(copyText('{"team":"St. Louis","x":"é ✓"}'), '{"team":"St. Louis","x":"é ✓"}');
  assert.equal(copyText(''), '');
  assert.equal(copyText('\r\n\t\\\\'), '\\r\\n\\t\\\\\\\\');
});

test('COPY rows: payloads holding each special character, and a null detail, read back as written', () => {
  const payloads = [
    '{"name":"back\\\\slash \\"quoted\\""}',
    'tab\there',
    'new\nline',
    'carriage\rreturn',
    '\\N',
    'all \\ \t \n \r of them\n',
  ];
  const rows: ChangeRecord[] = payloads.map((payload, i) => ({
    ...priceRow({ id: i + 1, price_id: i + 1, period_id: -1 }),
    payload,
    detail: `{"period_id":-1,"note":${JSON.stringify(payload)},"raw":"${payload}"}`,
  }));
  rows.push({ ...playRow({ id: 20, sequence: 1 }), payload: 'play\\\t\n\r' });
  const lines = readLines(copyRows(rows).toString('utf8'));
  assert.equal(lines.length, rows.length);
  for (const line of lines) assert.equal(line.length, COPY_COLUMNS.length);
  const stored = lines.map((line) => Object.fromEntries(COPY_COLUMNS.map((c, i) => [c, line[i]])));
  assert.deepEqual(
    stored.map((r) => r.payload),
    rows.map((r) => r.payload),
  );
  assert.deepEqual(
    stored.map((r) => r.detail),
    rows.map((r) => r.detail),
  );
  // The period is filled from the detail; a row without one has none.
  assert.deepEqual(
    stored.map((r) => r.period_id),
    [...payloads.map(() => '-1'), null],
  );
  // Every field of the record goes to the column the select list reads it from.
  const selected = changeColumns(POSTGRES)
    .split(', ')
    .map((c) => c.split(' AS '));
  assert.deepEqual(
    selected.map(([, name]) => name),
    CHANGE_FIELDS,
  );
  const numeric = new Set(['id', 'sport_id', 'committed_ms', 'price_id', 'affiliate_id', 'market_id']);
  assert.deepEqual(
    stored.map((r) =>
      Object.fromEntries(
        selected.map(([column, name]) => {
          const v = r[column!] ?? null;
          return [name, v !== null && numeric.has(name!) ? Number(v) : v];
        }),
      ),
    ),
    rows,
  );
});

test('COPY rows: a batch longer than its first guess of bytes, in characters of several bytes, is whole', () => {
  const payloads = ['€'.repeat(3000), 'a', '😀\\'.repeat(700), `${'é'.repeat(5000)}\n`];
  const rows = payloads.map((payload, i) => ({ ...priceRow({ id: i + 1, price_id: i + 1 }), payload }));
  const data = copyRows(rows);
  const lines = readLines(data.toString('utf8'));
  assert.deepEqual(
    lines.map((line) => line[COPY_COLUMNS.indexOf('payload')]),
    payloads,
  );
  assert.equal(copyRows([]).length, 0);
});
