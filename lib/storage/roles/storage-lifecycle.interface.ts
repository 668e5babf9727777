/** Opening and closing the database, its fault state and backups: what the runtime that owns the storage calls. */
export interface StorageLifecycle {
  /** Opens the database if owned, sets it up and creates the schema idempotently. */
  initialize(): Promise<void>;
  /** Releases what `initialize` opened. */
  close(): Promise<void>;
  /**
   * Set when the storage can no longer be used safely until a restart (SQLite: the file was deleted, replaced or
   * found corrupted): the poller then claims nothing, producers get this error and health reports it.
   */
  readonly fault: Error | undefined;
  /** Writes a consistent copy of the live database to a new file (SQLite); PostgreSQL throws BackupNotSupportedError. */
  backup(destination: string): Promise<void>;
}
