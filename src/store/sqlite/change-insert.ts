/**
 * The commit's statements of the change log and its event keys, prepared alike by the store's own
 * connection and by its writer's thread (writer-thread.ts).
 */
export const INSERT_CHANGE = `INSERT INTO changes
  (id, kind, event_key, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export const KEY_SQL = {
  allKeys: 'SELECT key, event_id FROM event_keys',
  findKey: 'SELECT key FROM event_keys WHERE event_id = ?',
  insertKey: 'INSERT INTO event_keys (event_id) VALUES (?)',
};
