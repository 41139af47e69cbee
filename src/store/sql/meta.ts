import { sqlText } from './dialect.ts';

/** `meta`: one text value a key (the epoch, retention's marks, the demo key). */
export const META_SQL = {
  read: sqlText('SELECT value FROM meta WHERE key = ?'),
  write: sqlText('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  /** Writes a value unless one is kept, and gives the one kept: the first of two writers wins. */
  begin: sqlText(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = meta.value RETURNING value',
  ),
};
