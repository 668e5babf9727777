/**
 * Jest setupFilesAfterEnv of the `postgres` project. Its afterAll belongs to the root block, so it runs after the
 * test file's own describe-level hooks have closed their apps: what is still open then was leaked by a failed boot.
 */
import { closeLeftoverStorages } from './postgres-backend.setup';

afterAll(() => closeLeftoverStorages());
