import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catalog } from '../../src/catalog/catalog.ts';
import { publicStat, STAT_DEFINITIONS, statById, statByName } from '../../src/catalog/stats.ts';
import { PICKLEBALL_STATS } from '../helpers/fixtures.ts';
import { simulatorCatalogOf } from '../helpers/simulator-catalog.ts';

/** Stat definitions as catalog records (kind `catalog`, type `stats`): docs/feeds.md, "The catalog". */

test("the simulator's stats records list its definitions as its tables do, each found by id and name", () => {
  const catalog = simulatorCatalogOf();
  assert.equal(JSON.stringify(catalog.stats().map(publicStat)), JSON.stringify(STAT_DEFINITIONS.map(publicStat)));
  for (const d of STAT_DEFINITIONS) {
    assert.deepEqual(catalog.statOf(d.sport_id, d.id), statById(d.id));
    assert.deepEqual(catalog.statNamed(d.sport_id, d.name), statByName(d.sport_id, d.name));
    assert.deepEqual(catalog.statById(d.id), d);
  }
  assert.equal(catalog.statOf(3, statByName(4, 'points')!.id), undefined, "another sport's stat is not baseball's");
});

test("a feed's sport keeps its own stats; a removal takes them out; a catalog that never had one keeps the simulator's", () => {
  const catalog = simulatorCatalogOf();
  const before = catalog.version;
  catalog.put(PICKLEBALL_STATS);
  assert.ok(catalog.version > before);
  assert.equal(catalog.statNamed(60, 'dinks')?.id, 60_001);
  assert.deepEqual(catalog.statOf(60, 60_001), { ...PICKLEBALL_STATS.stats[0], sport_id: 60 });
  assert.deepEqual(catalog.stats().at(-1), { ...PICKLEBALL_STATS.stats[0], sport_id: 60 });
  catalog.put({ type: 'removal', key: 'stats:60' });
  assert.equal(catalog.statNamed(60, 'dinks'), undefined);
  catalog.put({ type: 'removal', key: 'stats:4' });
  assert.equal(catalog.statNamed(4, 'points'), undefined);
  assert.equal(
    catalog.stats().some((s) => s.sport_id === 4),
    false,
  );
  assert.ok(catalog.statNamed(6, 'goals'), 'the other sports keep theirs');

  // No stats record ever (a store made before they were records): the simulator's, until one comes.
  const old = new Catalog();
  assert.equal(old.statNamed(4, 'points')?.id, statByName(4, 'points')!.id);
  old.put(PICKLEBALL_STATS);
  assert.equal(old.statNamed(4, 'points'), undefined);
  assert.deepEqual(
    old.stats().map((s) => s.id),
    [60_001],
  );
});
