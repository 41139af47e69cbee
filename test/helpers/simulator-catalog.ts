import { Catalog } from '../../src/catalog/catalog.ts';
import { simulatorCatalog } from '../../src/catalog/simulator-catalog.ts';

/** A catalog holding the simulator's records, as a simulator server's board holds them. */
export function simulatorCatalogOf(): Catalog {
  const catalog = new Catalog();
  for (const record of simulatorCatalog()) catalog.put(record);
  return catalog;
}

/** One shared simulator catalog, for tests that only read it. */
export const SIMULATOR_CATALOG: Catalog = simulatorCatalogOf();
