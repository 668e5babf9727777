/**
 * Numbered schema migrations, the same model for both backends: each version is a list of SQL statements, applied
 * once, in order, and recorded in the migrations table in the same transaction. Every statement is idempotent
 * (IF NOT EXISTS, IF EXISTS), so a user who runs them by hand twice, or on a database an unrecorded older build
 * made, does no harm.
 */

/** One step of the schema, as the migration modules of each backend write it. */
export interface SchemaMigration {
  /** 1, 2, 3...: the order of application and the number recorded. */
  readonly version: number;
  /** Short kebab-case name, recorded beside the version. */
  readonly name: string;
  /** The DDL of the step (without the recording, which the backend adds). */
  readonly statements: readonly string[];
}

/** One step of the schema as `getMigrations()` hands it out: complete SQL, including its own recording. */
export interface QueueSchemaMigration {
  /** The version this step brings the database to. */
  readonly version: number;
  /** Short name of the step. */
  readonly name: string;
  /** The statements to run, in order, in one transaction: the DDL, then the row recording the version. */
  readonly sql: string[];
}

/** The columns of the library's tables, by table: the same names in every released version and on both backends. */
export const KNOWN_COLUMNS: Readonly<Record<'jobs' | 'queues' | 'schedules', readonly string[]>> = {
  jobs: [
    'id',
    'queue',
    'status',
    'data',
    'priority',
    'run_at',
    'attempts',
    'max_attempts',
    'backoff',
    'timeout_ms',
    'unique_key',
    'locked_by',
    'lease_until',
    'result',
    'error',
    'progress',
    'schedule_key',
    'created_at',
    'started_at',
    'finished_at',
    'updated_at',
  ],
  queues: ['queue', 'paused', 'updated_at'],
  schedules: ['queue', 'name', 'cron', 'every_ms', 'timezone', 'data', 'options', 'next_run_at', 'created_at', 'updated_at'],
};

/** Describes how `found` columns differ from `expected`, or returns null when they are the same set. */
export function columnDifference(found: readonly string[], expected: readonly string[]): string | null {
  const missing = expected.filter((column) => !found.includes(column));
  const extra = found.filter((column) => !expected.includes(column));
  if (missing.length === 0 && extra.length === 0) return null;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (extra.length > 0) parts.push(`unexpected column${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  return parts.join('; ');
}

/** What the schema check found: the version in the database, and whether the migrations table records it. */
export interface FoundSchema {
  /** 0 when none of the library's tables exist. */
  readonly version: number;
  /**
   * False when some step up to `version` is not recorded: a database an older build made before versions were
   * recorded, or whose migrations table was emptied or edited by hand (adopted by its shape).
   */
  readonly recorded: boolean;
}

/** What the rows of a migrations table say. */
export interface MigrationRecord {
  /**
   * The newest version n with every version 1..n recorded (0 for none). A table emptied or edited by hand (rows
   * deleted, a gap, a zero or negative number) vouches for no step past its first gap.
   */
  readonly version: number;
  /** The highest number in the table: past the build's newest, a newer build migrated the database. */
  readonly highest: number;
}

/** Reads the versions of a migrations table's rows (see `MigrationRecord`). */
export function readMigrationRecord(versions: readonly unknown[]): MigrationRecord {
  const recorded = new Set(versions.map(Number).filter(Number.isFinite));
  let version = 0;
  while (recorded.has(version + 1)) version++;
  return { version, highest: Math.max(0, ...recorded) };
}

/** Checks that `migrations` are numbered 1..n without a gap; returns the newest version. */
export function latestVersion(migrations: readonly Pick<SchemaMigration, 'version' | 'name'>[]): number {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new Error(`Migration ${migration.name} is numbered ${migration.version}, expected ${index + 1}`);
  });
  return migrations.length;
}
