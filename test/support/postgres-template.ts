/**
 * Migrated PostgreSQL schemas for tests from a template: the e2e global setup runs the library's steps once per run
 * into a template schema (`migratePostgresSchema`, what a user who migrates by hand runs), reads back what they made
 * from the catalogs, and writes it down as one script of final DDL; a test's schema is that script, run with its
 * name put in, in one round trip (its tables are copied with LIKE from the template, which stays for the whole run).
 * PostgreSQL has no `CREATE SCHEMA ... TEMPLATE`, and the steps redo work the final shape does not need (a guarded
 * block per step, functions and triggers replaced by later steps, columns added one step at a time), so the script is
 * the cheaper path to the same schema; most of either is making the ~40 relations themselves, which no script avoids
 * (test/bench/setup-cost.bench.ts measures both: `steps,migrated`).
 *
 * The same schema, checked: the global setup copies the template once more and compares the copy's catalogs with the
 * template's (columns, constraints, indexes, triggers, functions, storage options, sequences, the recorded steps);
 * any difference fails the run at its start. An object kind the script does not copy (a view, a standalone sequence,
 * a type) fails it too, so a step that adds one has to extend this file rather than be silently left out.
 * No jest globals here: the global setup imports this file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgresSchema, postgresTestPool } from './template-database';

/** Environment variable naming this run's template script (set by the global setup, read by the workers). */
export const POSTGRES_TEMPLATE_ENV = 'QUEUE_TEST_POSTGRES_TEMPLATE';

/** Where the script names the schema it makes (replaced per copy); what it reads from names the template itself. */
const TARGET = '@schema@';

type Row = Record<string, unknown>;

async function rows(url: string, sql: string, params: unknown[]): Promise<Row[]> {
  const result = (await postgresTestPool(url).query(sql, params)) as { rows: Row[] };
  return result.rows;
}

/** Relation kinds the script copies: tables, and the sequences their identity columns own (LIKE makes new ones). */
const OTHER_OBJECTS_SQL = `SELECT c.relname::text AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relkind NOT IN ('r', 'i')
    AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'i'))
  UNION ALL
  SELECT t.typname::text, 'type ' || t.typtype::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname = $1 AND t.typrelid = 0 AND t.typelem = 0 AND t.typtype <> 'p'`;

const TABLES_SQL = `SELECT c.relname AS name, c.reloptions AS options, c.relpersistence AS persistence
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.oid`;

/** Foreign keys: the one kind of constraint LIKE leaves out. */
const FOREIGN_KEYS_SQL = `SELECT cl.relname AS table_name, con.conname AS name, pg_get_constraintdef(con.oid) AS def
  FROM pg_constraint con JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
  WHERE n.nspname = $1 AND con.contype = 'f' ORDER BY con.oid`;

/** Every index, by name, with its definition. */
const INDEXES_SQL = `SELECT ic.relname AS name, pg_get_indexdef(ic.oid) AS def
  FROM pg_class ic JOIN pg_namespace n ON n.oid = ic.relnamespace WHERE n.nspname = $1 AND ic.relkind = 'i' ORDER BY ic.oid`;

const FUNCTIONS_SQL = `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = $1 ORDER BY p.oid`;

/** User triggers (foreign keys' own are internal and come with the constraint). */
const TRIGGERS_SQL = `SELECT pg_get_triggerdef(t.oid) AS def, t.tgenabled AS enabled
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY t.oid`;

/**
 * What a schema is made of, one row per object, for the comparison of a copy with its template. Columns by position
 * among the live ones (a dropped column leaves a gap in attnum that a copy does not have).
 */
const SHAPE_SQL = `
  SELECT 'column ' || c.relname || ' ' || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) AS object,
    concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
      pg_get_expr(d.adbin, d.adrelid), a.attcollation, a.attstorage) AS def
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'table ' || c.relname, concat_ws(' ', c.reloptions::text, c.relpersistence)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'
  UNION ALL
  SELECT 'constraint ' || cl.relname || ' ' || con.conname, concat_ws(' ', con.contype, pg_get_constraintdef(con.oid))
  FROM pg_constraint con JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace WHERE n.nspname = $1
  UNION ALL
  SELECT 'index ' || ic.relname, pg_get_indexdef(ic.oid)
  FROM pg_class ic JOIN pg_namespace n ON n.oid = ic.relnamespace WHERE n.nspname = $1 AND ic.relkind = 'i'
  UNION ALL
  SELECT 'trigger ' || t.tgname, concat_ws(' ', pg_get_triggerdef(t.oid), t.tgenabled)
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND NOT t.tgisinternal
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure::text, pg_get_functiondef(p.oid)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
  UNION ALL
  SELECT 'sequence ' || c.relname, concat_ws(' ', s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle)
  FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`;

const quoted = (name: string): string => `"${name}"`;

/** An index's definition without its name and schema: what a copy's index and the template's have in common. */
function indexShape(def: unknown, schema: string): string {
  return String(def)
    .replace(/ INDEX \S+ ON \S+?\./, ' INDEX ON ')
    .split(schema)
    .join(TARGET);
}

/**
 * The renames that give the indexes LIKE made in `probe` (named after their columns) the template's names, matched
 * by definition.
 */
async function indexRenames(url: string, template: string, probe: string): Promise<string[]> {
  const wanted = new Map((await rows(url, INDEXES_SQL, [template])).map((row) => [indexShape(row.def, template), String(row.name)]));
  const renames: string[] = [];
  for (const made of await rows(url, INDEXES_SQL, [probe])) {
    const name = wanted.get(indexShape(made.def, probe));
    if (name === undefined) throw new Error(`postgres-template.ts: LIKE made an index the template has not: ${String(made.def)}`);
    if (name !== made.name) renames.push(`ALTER INDEX ${quoted(TARGET)}.${quoted(String(made.name))} RENAME TO ${quoted(name)}`);
  }
  return renames;
}

/**
 * The script of final DDL that makes a schema like `template`, named `TARGET`: the definitions read from the
 * catalogs have every mention of the template renamed (identifiers, and texts made of the name, such as the
 * notification channels in the functions); the table copies (LIKE) and the row copies read from the template itself.
 * Each table comes with its indexes (LIKE ... INCLUDING ALL, each built with its table), renamed to the template's
 * names, which `probe` (a new schema) finds out: cheaper than adding constraints and indexes to built tables.
 */
async function templateScript(url: string, template: string, probe: string): Promise<string> {
  const retarget = (text: unknown): string => String(text).split(template).join(TARGET);
  const others = await rows(url, OTHER_OBJECTS_SQL, [template]);
  if (others.length > 0) {
    throw new Error(`postgres-template.ts does not copy ${others.map((row) => `${row.kind} ${row.name}`).join(', ')}: extend it`);
  }
  const [S, from] = [quoted(TARGET), quoted(template)];
  const tables = await rows(url, TABLES_SQL, [template]);
  const sql = [`CREATE SCHEMA ${S}`];
  for (const table of tables) {
    if (table.persistence !== 'p') throw new Error(`postgres-template.ts copies permanent tables only, not ${String(table.name)}`);
    const options = (table.options as string[] | null) ?? [];
    const name = quoted(String(table.name));
    // Columns, defaults, identity (a new sequence), NOT NULL and CHECK constraints, keys and indexes.
    sql.push(`CREATE TABLE ${S}.${name} (LIKE ${from}.${name} INCLUDING ALL)${options.length ? ` WITH (${options.join(', ')})` : ''}`);
  }
  await postgresTestPool(url).query(scriptFor(sql.join(';\n'), probe));
  sql.push(...(await indexRenames(url, template, probe)));
  for (const row of await rows(url, FOREIGN_KEYS_SQL, [template])) {
    sql.push(`ALTER TABLE ${S}.${quoted(String(row.table_name))} ADD CONSTRAINT ${quoted(String(row.name))} ${retarget(row.def)}`);
  }
  for (const row of await rows(url, FUNCTIONS_SQL, [template])) sql.push(retarget(row.def));
  for (const row of await rows(url, TRIGGERS_SQL, [template])) {
    if (row.enabled !== 'O') throw new Error(`postgres-template.ts copies enabled triggers only: ${String(row.def)}`);
    sql.push(retarget(row.def));
  }
  // The rows the steps wrote (the recorded versions): read from the template when the script runs.
  for (const table of tables) {
    const name = quoted(String(table.name));
    const [{ count }] = await rows(url, `SELECT count(*)::int AS count FROM ${from}.${name}`, []);
    if (Number(count) > 0) sql.push(`INSERT INTO ${S}.${name} SELECT * FROM ${from}.${name}`);
  }
  return sql.join(';\n');
}

/** The script as run for `schema`. */
function scriptFor(script: string, schema: string): string {
  return script.split(TARGET).join(schema);
}

async function shape(url: string, schema: string): Promise<Map<string, string>> {
  const found = await rows(url, SHAPE_SQL, [schema]);
  const named = (text: unknown) => String(text).split(schema).join('<schema>');
  return new Map(found.map((row) => [named(row.object), named(row.def)]));
}

async function recordedSteps(url: string, schema: string): Promise<string> {
  return JSON.stringify(await rows(url, `SELECT * FROM ${quoted(schema)}.nest_queue_migrations ORDER BY version`, []));
}

/** Throws, naming each difference, unless `copy` is made of what `template` is (and records the same steps). */
async function assertSameSchema(url: string, template: string, copy: string): Promise<void> {
  const [expected, actual] = [await shape(url, template), await shape(url, copy)];
  const differences = [...new Set([...expected.keys(), ...actual.keys()])]
    .filter((object) => expected.get(object) !== actual.get(object))
    .map((object) => `${object}: migrated ${expected.get(object) ?? '(none)'} / copied ${actual.get(object) ?? '(none)'}`);
  if ((await recordedSteps(url, template)) !== (await recordedSteps(url, copy))) differences.push('the recorded steps differ');
  if (differences.length > 0)
    throw new Error(`postgres-template.ts: the copy differs from the migrated template:\n${differences.join('\n')}`);
}

/**
 * Migrates `template` (a new schema) with the library's steps, writes the script of its copies to `dir`, proves a
 * copy equal to it (`probe`, a new schema, and `probe_names`, both left for the teardown to drop), and names the
 * script in `QUEUE_TEST_POSTGRES_TEMPLATE` for the workers.
 */
export async function buildPostgresTemplate(url: string, template: string, probe: string, dir: string): Promise<string> {
  await migratePostgresSchema(url, template);
  const script = await templateScript(url, template, `${probe}_names`);
  await postgresTestPool(url).query(scriptFor(script, probe));
  await assertSameSchema(url, template, probe);
  const path = join(dir, 'postgres-template.sql');
  writeFileSync(path, script);
  process.env[POSTGRES_TEMPLATE_ENV] = path;
  return path;
}

let loaded: string | undefined;

/**
 * Makes `schema` (new) a copy of the run's template in one round trip. Returns false when this process has no
 * template (a run without the e2e global setup): the schema is then not made, as `migratePostgresSchema` would.
 */
export async function copyPostgresTemplate(url: string, schema: string): Promise<boolean> {
  const path = process.env[POSTGRES_TEMPLATE_ENV];
  if (!path) return false;
  loaded ??= readFileSync(path, 'utf8');
  await postgresTestPool(url).query(scriptFor(loaded, schema));
  return true;
}
