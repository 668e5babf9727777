import { SqliteQueueError } from './sqlite-queue.error';

/**
 * The database holds a table with one of the queue's names that this library did not make (no migrations table
 * beside it, and a shape no released version created): `app.init()` rejects rather than write into another
 * application's rows. Nothing is written.
 */
export class ForeignSchemaError extends SqliteQueueError {
  constructor(
    /** The table (schema-qualified on PostgreSQL) whose shape is not one the library created. */
    readonly table: string,
    /** What differs from the library's table: missing or unexpected columns or indexes. */
    readonly difference: string,
  ) {
    super(
      `Table ${table} was not created by this library (${difference}), and there is no migrations table beside it: ` +
        'refusing to use it. Point the queue at another database or PostgreSQL schema, or rename the table.',
    );
  }
}
