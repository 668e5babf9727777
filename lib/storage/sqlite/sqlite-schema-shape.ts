/**
 * Which SQLite schema version a database's tables are at, told by their shape (columns, indexes, triggers): for a
 * database an older build made before versions were recorded, and for one whose migrations table was emptied or
 * edited by hand. SQLite has no `ADD COLUMN IF NOT EXISTS`, so steps 3 and later cannot simply run again: the
 * shape says which of them are there already.
 */
import {
  EVENT_READERS_TABLE,
  EVENTS_TABLE,
  DEPENDENCIES_TABLE,
  GROUP_LIMITS_TABLE,
  JOBS_TABLE,
  PROCESSES_TABLE,
  QUEUES_TABLE,
  SCHEDULES_TABLE,
} from '../../table-names.constants';
import { KNOWN_COLUMNS, columnDifference } from '../shared/schema-migration';
import { StatementRunner } from '../shared/statement-runner';
import { SQLITE_MIGRATIONS } from './migrations';

/** The tables a step creates or adds columns to; every other table's name is not the library's. */
export const SQLITE_QUEUE_TABLES = [
  JOBS_TABLE,
  QUEUES_TABLE,
  SCHEDULES_TABLE,
  EVENTS_TABLE,
  EVENT_READERS_TABLE,
  PROCESSES_TABLE,
  GROUP_LIMITS_TABLE,
  DEPENDENCIES_TABLE,
] as const;

/**
 * An index or trigger a step creates: its table, its kind, its name, and for one a later step recreates under the
 * same name, a text only the later definition holds (else the two versions would look alike).
 */
type SchemaObject = readonly [table: string, kind: 'index' | 'trigger', name: string, defines?: string];

/** What one step leaves in the shape: the columns it adds per table (all of a table it creates), its indexes and triggers. */
interface StepShape {
  readonly columns?: Readonly<Record<string, readonly string[]>>;
  readonly objects?: readonly SchemaObject[];
  /** Objects it drops: no longer required from then on. */
  readonly drops?: readonly string[];
}

const T = JOBS_TABLE;

/** The shape of each step of `migrations/`, in the same order: kept beside them by the schema-migrations tests. */
const SQLITE_STEP_SHAPES: readonly StepShape[] = [
  {
    columns: { [T]: KNOWN_COLUMNS.jobs, [QUEUES_TABLE]: KNOWN_COLUMNS.queues, [SCHEDULES_TABLE]: KNOWN_COLUMNS.schedules },
    objects: [
      [T, 'index', `${T}_claim`],
      [T, 'index', `${T}_running`],
      [T, 'index', `${T}_status`],
      [T, 'index', `${T}_schedule_key`],
      [T, 'index', `${T}_unique_key`],
    ],
  },
  { objects: [[T, 'index', `${T}_finished`]], drops: [`${T}_status`] },
  { columns: { [T]: ['name', 'logs', 'remove_on'], [QUEUES_TABLE]: ['processor_until'] } },
  {
    columns: { [T]: ['parent_id', 'on_child_failure'] },
    objects: [
      [T, 'index', `${T}_children`],
      [T, 'trigger', `${T}_child_finished`],
      [T, 'trigger', `${T}_child_removed`],
    ],
  },
  {
    columns: { [QUEUES_TABLE]: ['rate_max', 'rate_duration', 'window_start', 'window_count', 'limited_until'] },
    objects: [[T, 'trigger', `${T}_rate_window`]],
  },
  { columns: { [EVENTS_TABLE]: ['id', 'origin', 'created_at', 'events'], [EVENT_READERS_TABLE]: ['origin', 'seen_at'] } },
  // Recreates step 4's trigger: its failure walk is a recursive CTE, which step 4's body has not.
  { objects: [[T, 'trigger', `${T}_child_finished`, 'WITH RECURSIVE']] },
  // Recreates step 7's trigger, fired by `finished_at` instead of `status`.
  { objects: [[T, 'trigger', `${T}_child_finished`, 'UPDATE OF finished_at']] },
  {
    columns: { [T]: ['job_group'] },
    objects: [
      [T, 'index', `${T}_group_claim`],
      [T, 'index', `${T}_groups`],
    ],
  },
  {
    columns: { [T]: ['key_until', 'debounce_key', 'origin', 'snoozes'], [QUEUES_TABLE]: ['dead_letter'] },
    objects: [
      [T, 'index', `${T}_key_window`],
      [T, 'index', `${T}_debounce_key`],
      [T, 'trigger', `${T}_dead_letter`],
    ],
  },
  // trace-context (step 11): the W3C trace context a job was added under.
  { columns: { [T]: ['trace_context'] } },
  // run-history (step 12): the attempts that ended other than by completing.
  { columns: { [T]: ['runs'] } },
  // processes (step 13): which process runs which processors.
  {
    columns: {
      [PROCESSES_TABLE]: ['worker_id', 'queue', 'concurrency', 'started_at', 'seen_at', 'until', 'stopped_at'],
    },
  },
  // Recreates step 10's trigger: a dead letter is not copied again.
  { objects: [[T, 'trigger', `${T}_dead_letter`, 'NEW.origin IS NULL']] },
  // Recreates it again, fired by statements that set the error (off the claim and the completion).
  { objects: [[T, 'trigger', `${T}_dead_letter`, 'UPDATE OF error']] },
  // group-limits (step 16): the group limiter's columns, the groups' windows and pauses, and the trigger counting them.
  {
    columns: {
      [QUEUES_TABLE]: ['group_rate_max', 'group_rate_duration'],
      [GROUP_LIMITS_TABLE]: ['queue', 'job_group', 'window_start', 'window_count', 'limited_until'],
    },
    objects: [[T, 'trigger', `${T}_group_window`]],
  },
  // dependencies (step 17): the edges of `dependsOn`, the dependent's list and policy, the dependency's flag, the triggers.
  {
    columns: { [T]: ['depends_on', 'on_dependency_failure', 'dependents'], [DEPENDENCIES_TABLE]: ['job_id', 'depends_on'] },
    objects: [
      [DEPENDENCIES_TABLE, 'index', `${DEPENDENCIES_TABLE}_dependents`],
      [T, 'trigger', `${T}_dependent_added`],
      [T, 'trigger', `${T}_dependency_finished`],
      [T, 'trigger', `${T}_dependency_removed`],
      [T, 'trigger', `${T}_dependent_removed`],
    ],
  },
  // claimed-ahead (step 18): recreates the rate windows' triggers of steps 5 and 16, reading the claim's updated_at.
  {
    objects: [
      [T, 'trigger', `${T}_rate_window`, 'NEW.updated_at'],
      [T, 'trigger', `${T}_group_window`, 'NEW.updated_at'],
    ],
  },
  // run-batch (step 19): the size of the batch handler call that ran the current attempt.
  { columns: { [T]: ['run_batch'] } },
];

if (SQLITE_STEP_SHAPES.length !== SQLITE_MIGRATIONS.length) {
  throw new Error(`sqlite-schema-shape.ts describes ${SQLITE_STEP_SHAPES.length} steps, migrations/ has ${SQLITE_MIGRATIONS.length}`);
}

/** The shape a database made by steps 1..version has. */
interface VersionShape {
  readonly columns: ReadonlyMap<string, readonly string[]>;
  readonly objects: readonly SchemaObject[];
}

function shapeAt(version: number): VersionShape {
  const columns = new Map<string, string[]>();
  let objects: SchemaObject[] = [];
  for (const step of SQLITE_STEP_SHAPES.slice(0, version)) {
    for (const [table, added] of Object.entries(step.columns ?? {})) columns.set(table, [...(columns.get(table) ?? []), ...added]);
    // An object a step recreates under the same name replaces the earlier one: required once, as the step defines it.
    const recreated = new Set((step.objects ?? []).map(([, , name]) => name));
    objects = [...objects.filter(([, , name]) => !step.drops?.includes(name) && !recreated.has(name)), ...(step.objects ?? [])];
  }
  return { columns, objects };
}

/** One way the tables differ from a version's shape: the table, and what differs. */
interface ShapeDifference {
  readonly table: string;
  readonly detail: string;
  /** How many columns, tables or objects differ: the version with the fewest is the one reported. */
  readonly weight: number;
}

/** What the database holds: its queue tables' columns, and the names of their indexes and triggers. */
interface FoundShape {
  readonly columns: ReadonlyMap<string, readonly string[]>;
  /** Name -> its CREATE statement. */
  readonly objects: ReadonlyMap<string, string>;
}

function differences(found: FoundShape, expected: VersionShape): ShapeDifference[] {
  const result: ShapeDifference[] = [];
  for (const [table, columns] of expected.columns) {
    const present = found.columns.get(table);
    if (!present) {
      result.push({ table, detail: 'the table is missing beside the other queue tables', weight: columns.length });
      continue;
    }
    const difference = columnDifference(present, columns);
    if (difference) {
      const weight = columns.filter((column) => !present.includes(column)).length + present.filter((c) => !columns.includes(c)).length;
      result.push({ table, detail: difference, weight });
    }
  }
  for (const kind of ['index', 'trigger'] as const) {
    const missing = expected.objects.filter(
      ([, objectKind, name, defines]) =>
        objectKind === kind && (!found.objects.has(name) || (defines !== undefined && !found.objects.get(name)!.includes(defines))),
    );
    if (missing.length === 0) continue;
    const names = missing.map(([, , name]) => name);
    const plural = kind === 'index' ? 'indexes' : 'triggers';
    result.push({ table: missing[0][0], detail: `missing ${names.length > 1 ? plural : kind} ${names.join(', ')}`, weight: names.length });
  }
  return result;
}

/** The version whose shape the tables have, or how they differ from the closest one. */
export type ShapeVerdict = { readonly version: number } | { readonly table: string; readonly difference: string };

const COLUMNS_SQL = `SELECT name FROM pragma_table_info(?)`;
const OBJECTS_SQL = `SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN (${SQLITE_QUEUE_TABLES.map(() => '?').join(', ')})`;

/**
 * Compares the queue tables found (`tables`, at least one) with the shape of every version. Columns must match
 * exactly (a table with one more NOT NULL column would fail every insert); indexes and triggers must be there,
 * others may be too, and so may a table of a later step (its step creates it only if it does not exist). Versions
 * 1 and 2 differ by an index only: with both, it is 2.
 */
export async function sqliteShapeVersion(runner: StatementRunner, tables: readonly string[]): Promise<ShapeVerdict> {
  const columns = new Map<string, string[]>();
  for (const table of tables)
    columns.set(
      table,
      (await runner.all(COLUMNS_SQL, [table])).map((row) => String(row.name)),
    );
  const objects = new Map(
    (await runner.all(OBJECTS_SQL, [...SQLITE_QUEUE_TABLES])).map((row) => [String(row.name), String(row.sql ?? '')] as const),
  );
  let closest: ShapeDifference | undefined;
  let closestWeight = Infinity;
  for (let version = SQLITE_STEP_SHAPES.length; version >= 1; version--) {
    const found = differences({ columns, objects }, shapeAt(version));
    if (found.length === 0) return { version };
    const weight = found.reduce((sum, difference) => sum + difference.weight, 0);
    // Ties go to the older version: a table of another application is compared with the first released shape.
    if (weight <= closestWeight) [closest, closestWeight] = [found[0], weight];
  }
  return { table: closest!.table, difference: closest!.detail };
}
