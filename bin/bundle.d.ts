/** Bundles `entry` (a path from the package root) into one ES module; resolves to its path. */
export function bundle(entry: string): Promise<string>;
