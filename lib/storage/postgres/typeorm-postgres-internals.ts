import { DataSource } from 'typeorm';
import { PgListenClient } from './postgres-notification-listener';

/** The slice of a pg-pool `Pool` the storage uses. */
export interface PgPool {
  on(event: 'connect', listener: (client: PgPooledClient) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  options?: Record<string, unknown>;
}

/** The slice of a pooled node-postgres client the storage uses. */
export interface PgPooledClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The one place that reads TypeORM's and pg-pool's private fields. TypeORM's PostgresDriver creates the pg pool
 * itself and offers no hook for the clients it makes; what we need of it (the pg module, the pool and its
 * clients) is read here, so a TypeORM or pg upgrade that moves them breaks one file.
 */
interface PostgresDriverInternals {
  postgres?: { Client: new (config: object) => PgListenClient };
  master?: PgPool & { _clients?: PgPooledClient[] };
}

function internalsOf(dataSource: DataSource): PostgresDriverInternals {
  return dataSource.driver as unknown as PostgresDriverInternals;
}

/** The pg `Client` class and the pool's connection options, to open a connection configured like the pool's. */
export function clientFactoryOf(dataSource: DataSource): {
  Client: new (config: object) => PgListenClient;
  options: Record<string, unknown>;
} {
  const driver = internalsOf(dataSource);
  const Client = driver.postgres?.Client;
  const options = driver.master?.options;
  if (!Client || !options) throw new Error('the TypeORM postgres driver exposes no pg Client or pool options');
  return { Client, options };
}

/** The master pool of an initialized DataSource, and the clients it holds now. */
export function masterPoolOf(dataSource: DataSource): { pool: PgPool; clients: PgPooledClient[] } | null {
  const pool = internalsOf(dataSource).master;
  if (!pool || typeof pool.on !== 'function') return null;
  return { pool, clients: [...(pool._clients ?? [])] };
}
