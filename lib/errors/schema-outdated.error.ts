import { QueueError } from './queue.error';

/**
 * Boot does not migrate (`migrate: false`, or `postgres.createSchema: false`) and the database's queue schema is
 * missing or older than this build needs: `app.init()` rejects. Run the statements of `getMigrations()` for the
 * versions the message names first.
 */
export class SchemaOutdatedError extends QueueError {
  constructor(
    /** The schema version found in the database (0: no queue tables). */
    readonly databaseVersion: number,
    /** The schema version this build needs. */
    readonly requiredVersion: number,
  ) {
    super(
      `The queue schema in the database is version ${databaseVersion}, and this build needs version ${requiredVersion}; ` +
        `boot does not migrate: run the migrations ${databaseVersion + 1} to ${requiredVersion} of getMigrations() first.`,
    );
  }
}
