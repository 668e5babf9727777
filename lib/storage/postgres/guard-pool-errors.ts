import { PgPool, PgPooledClient } from './typeorm-postgres-internals';

/** Where connection errors of the pool go instead of crashing the process. */
export type ConnectionErrorSink = (error: Error) => void;

const guarded = new WeakSet<object>();

/**
 * Gives the pool, and every client it holds or will open, an `error` listener of ours for as long as it lives.
 *
 * Why: node-postgres emits `error` on a client whose server ends the connection (a restart, a failover,
 * `pg_terminate_backend`), and an `error` event without a listener kills the process. pg-pool listens while a
 * client is idle and removes its listener when it hands the client out; TypeORM adds its own only when its
 * connect promise settles, a microtask later. A new client's connect completes while node-postgres parses a
 * chunk from the socket, and an error message in the same chunk is emitted synchronously, inside that window.
 * A listener that never leaves closes it; pg-pool and TypeORM still do what they do with the error.
 */
export function guardPoolErrors(pool: PgPool, existing: PgPooledClient[], sink: ConnectionErrorSink): void {
  if (guarded.has(pool)) return;
  guarded.add(pool);
  const guard = (client: PgPooledClient) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', sink);
  };
  // 'connect' is emitted for each new client before pg-pool hands it out (and removes its idle listener).
  pool.on('connect', guard);
  // pg-pool emits 'error' for idle clients it drops; TypeORM listens too, but logs through its own logger only.
  pool.on('error', sink);
  existing.forEach(guard);
}
