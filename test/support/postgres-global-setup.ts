import { setupPostgresTestSchemas } from './postgres-test-schemas';

/** Jest globalSetup of the `postgres` project. */
export default setupPostgresTestSchemas;
