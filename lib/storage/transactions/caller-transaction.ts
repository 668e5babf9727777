/**
 * The application's transaction a call's writes went into, as far as the storage follows it (SQLite, where the module
 * and the application share one connection). A job written in a transaction that rolled back never existed, and on
 * SQLite its id may be given again: its handle must stop naming it.
 */
export interface CallerTransaction {
  /** True once the transaction rolled back. */
  readonly rolledBack: boolean;
  /** Calls `listener` once, when the transaction rolls back (never when it commits); the result stops listening. */
  onRollback(listener: () => void): () => void;
}
