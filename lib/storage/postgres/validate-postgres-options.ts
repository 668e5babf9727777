import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../../errors/invalid-module-options.error';
import { PostgresQueueOptions } from '../../interfaces/postgres-queue-options.interface';
import { describeValue, isPositiveInteger } from '../../utils/validation.util';
import { keysOf, unknownOptionProblem } from '../../utils/option-keys.util';
import { postgresSchemaProblem } from './postgres-schema';

/** The keys of `postgres`: the list fails to compile while it misses one of the interface's. */
const KNOWN = keysOf<PostgresQueueOptions>()(
  'url',
  'host',
  'port',
  'username',
  'password',
  'database',
  'ssl',
  'poolSize',
  'schema',
  'createSchema',
  'preparedStatements',
);
/** The fields that open a connection: meaningless next to a borrowed DataSource. */
const CONNECTION_FIELDS = ['url', 'host', 'port', 'username', 'password', 'database', 'ssl', 'poolSize'] as const;
const STRING_FIELDS = ['url', 'host', 'username', 'password', 'database'] as const;

/** What the module options say next to `postgres`, for the checks that involve both. */
export interface PostgresOptionsContext {
  /** The SQLite `database` option as the user gave it (before defaults). */
  database: unknown;
  dataSource: DataSource | undefined;
}

/**
 * Validates the `postgres` module option and its combination with the others; throws
 * `InvalidModuleOptionsError` naming the offending field. Returns the options unchanged (undefined when absent).
 */
export function validatePostgresOptions(options: unknown, context: PostgresOptionsContext): PostgresQueueOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidModuleOptionsError('postgres', `must be an object, got ${describeValue(options)}`);
  }
  const given = options as Record<string, unknown>;
  const unknown = unknownOptionProblem(given, KNOWN);
  if (unknown) throw new InvalidModuleOptionsError(`postgres.${unknown.key}`, unknown.reason);
  if (context.database !== undefined) {
    throw new InvalidModuleOptionsError(
      'postgres',
      'cannot be combined with database (a SQLite file): choose one backend; the PostgreSQL database name goes in postgres.database',
    );
  }
  const dataSourceType = context.dataSource?.options?.type;
  if (context.dataSource !== undefined) {
    if (dataSourceType !== 'postgres') {
      throw new InvalidModuleOptionsError(
        'postgres',
        `needs a DataSource of type 'postgres' when combined with dataSource, got '${String(dataSourceType)}'`,
      );
    }
    const connectionFields = CONNECTION_FIELDS.filter((field) => given[field] !== undefined);
    if (connectionFields.length > 0) {
      throw new InvalidModuleOptionsError(
        `postgres.${connectionFields[0]}`,
        'opens a connection, but dataSource is given: configure the connection on the DataSource (only schema, createSchema and preparedStatements apply)',
      );
    }
  }
  for (const field of STRING_FIELDS) {
    if (given[field] !== undefined && typeof given[field] !== 'string') {
      throw new InvalidModuleOptionsError(`postgres.${field}`, `must be a string, got ${describeValue(given[field])}`);
    }
  }
  if (given.port !== undefined && !(isPositiveInteger(given.port) && given.port <= 65535)) {
    throw new InvalidModuleOptionsError('postgres.port', `must be an integer from 1 to 65535, got ${describeValue(given.port)}`);
  }
  if (given.poolSize !== undefined && !(isPositiveInteger(given.poolSize) && given.poolSize <= 10_000)) {
    throw new InvalidModuleOptionsError('postgres.poolSize', `must be an integer from 1 to 10000, got ${describeValue(given.poolSize)}`);
  }
  if (given.ssl !== undefined && typeof given.ssl !== 'boolean' && (typeof given.ssl !== 'object' || given.ssl === null)) {
    throw new InvalidModuleOptionsError('postgres.ssl', `must be a boolean or TLS options, got ${describeValue(given.ssl)}`);
  }
  if (given.schema !== undefined) {
    const problem = postgresSchemaProblem(given.schema);
    if (problem) throw new InvalidModuleOptionsError('postgres.schema', `${problem}, got ${describeValue(given.schema)}`);
  }
  for (const field of ['createSchema', 'preparedStatements'] as const) {
    if (given[field] !== undefined && typeof given[field] !== 'boolean') {
      throw new InvalidModuleOptionsError(`postgres.${field}`, `must be a boolean, got ${describeValue(given[field])}`);
    }
  }
  return given as PostgresQueueOptions;
}
