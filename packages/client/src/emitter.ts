type Handler = (...args: unknown[]) => void;

/** A small typed event emitter (no Node dependency, so the package runs in browsers too). */
export class Emitter<Events extends Record<string, unknown[]>> {
  private readonly handlers = new Map<keyof Events, Set<Handler>>();

  on<K extends keyof Events>(name: K, fn: (...args: Events[K]) => void): this {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(fn as unknown as Handler);
    return this;
  }

  off<K extends keyof Events>(name: K, fn: (...args: Events[K]) => void): this {
    this.handlers.get(name)?.delete(fn as unknown as Handler);
    return this;
  }

  protected emit<K extends keyof Events>(name: K, ...args: Events[K]): void {
    for (const fn of this.handlers.get(name) ?? []) fn(...args);
  }
}
