import { QueueError } from './queue.error';

/**
 * The database holds a table with one of the queue's names that this library did not make (no migrations table
 * beside it, or on SQLite one that records no version, and a shape no released version created): `app.init()`
 * rejects rather than write into another application's rows. Nothing is written.
 */
export class ForeignSchemaError extends QueueError {
  constructor(
    /** The table (schema-qualified on PostgreSQL) whose shape is not one the library created. */
    readonly table: string,
    /** What differs from the library's table: missing or unexpected columns or indexes. */
    readonly difference: string,
    /**
     * Why the migrations table does not vouch for it: absent, or (SQLite) present but recording no version, as when
     * it was emptied by hand.
     */
    readonly migrationsTable = 'there is no migrations table beside it',
  ) {
    super(
      `Table ${table} was not created by this library (${difference}), and ${migrationsTable}: ` +
        'refusing to use it. Point the queue at another database or PostgreSQL schema, or rename the table.',
    );
  }
}
