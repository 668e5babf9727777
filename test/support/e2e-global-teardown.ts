import { removeChildBuild } from './child-build';
import { teardownPostgresTestSchemas } from './postgres-test-schemas';

/** Jest globalTeardown of the `e2e` project: removes the run's child build and drops its PostgreSQL schemas. */
export default async function teardownE2e(): Promise<void> {
  removeChildBuild();
  await teardownPostgresTestSchemas();
}
