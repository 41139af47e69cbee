/** A source of update batches; started after the store has been loaded. */
export interface Feed {
  start(): void;
  /** Stops producing; resolves once a batch in flight is committed. */
  stop(): Promise<void>;
}
