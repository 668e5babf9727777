import { teardownPostgresTestSchemas } from './postgres-test-schemas';

/** Jest globalTeardown of the `postgres` project. */
export default teardownPostgresTestSchemas;
