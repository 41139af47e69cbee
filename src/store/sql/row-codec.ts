/**
 * A record whose fields are its table's columns, one each, needs no code to read back: selected by
 * its field list, a row is the record. Its codec is that list, and the values of a record in its order.
 */

/** Every field of `R`, in the order given: a field left out or unknown does not compile. */
export function fieldsOf<R>(fields: { [K in keyof R]-?: true }): (keyof R & string)[] {
  return Object.keys(fields) as (keyof R & string)[];
}

/** The values of `r` in the order of `fields`: a row to bind. */
export function valuesOf<R>(r: R, fields: readonly (keyof R & string)[]): unknown[] {
  return fields.map((f) => r[f]);
}

/** The fields of `records` column by column, in the order of `fields`. */
export function fieldColumns<R>(records: readonly R[], fields: readonly (keyof R & string)[]): unknown[][] {
  return fields.map((f) => records.map((r) => r[f]));
}

/** Rows of `width` values as one array a column (PostgreSQL binds a column of many rows as one array). */
export function columnsOf(rows: Iterable<readonly unknown[]>, width: number): unknown[][] {
  const columns = Array.from({ length: width }, () => [] as unknown[]);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i]!.push(row[i]);
  return columns;
}
