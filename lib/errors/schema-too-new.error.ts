import { QueueError } from './queue.error';

/**
 * The database's queue schema was migrated by a newer version of this library than the one running: this
 * process cannot know what the newer schema means, so `app.init()` rejects. Upgrade the package.
 */
export class SchemaTooNewError extends QueueError {
  constructor(
    /** The schema version recorded in the database. */
    readonly databaseVersion: number,
    /** The newest schema version this build knows. */
    readonly knownVersion: number,
  ) {
    super(
      `The queue schema in the database is version ${databaseVersion}, newer than version ${knownVersion}, the newest ` +
        'this build of the library knows: upgrade the package before starting this process.',
    );
  }
}
