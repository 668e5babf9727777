import { SchemaOutdatedError } from '../../errors/schema-outdated.error';
import { SchemaTooNewError } from '../../errors/schema-too-new.error';
import { CliCommand } from '../cli-command';
import { DatabaseSelection, checkSqliteFile, moduleOptionsFor, newRuntime } from '../cli-database';
import { noPositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

/** The schema version of the selected database, read without migrating (0: no queue tables). */
async function schemaVersion(selection: DatabaseSelection): Promise<{ version: number; latest: number }> {
  const options = moduleOptionsFor('migrate', selection, false);
  // A schema too new is refused before the storage sets the file up.
  if (!options.postgres)
    await checkSqliteFile(options.database!, options.driver!).catch((error: unknown) => {
      if (error instanceof SchemaTooNewError) throw error;
    });
  const runtime = await newRuntime(options);
  // Only a read: a dry run (and a migrate with nothing to do) must leave the file as it found it, byte for byte.
  runtime.readOnlyStorage = true;
  const { getMigrations } = await import('../../storage/get-migrations');
  const backend = runtime.options.postgres ? 'postgres' : 'sqlite';
  const latest = getMigrations(backend).at(-1)!.version;
  try {
    await runtime.storage();
    return { version: latest, latest };
  } catch (error) {
    if (error instanceof SchemaOutdatedError) return { version: error.databaseVersion, latest };
    throw error;
  } finally {
    await runtime.onApplicationShutdown().catch(() => undefined);
  }
}

export const MIGRATE_COMMAND: CliCommand = {
  name: 'migrate',
  summary: "apply this version's schema steps (--dry-run prints their SQL)",
  help: `Usage: nestjs-sqlite-queue migrate [--dry-run] <database>
  Brings the queue schema to this version's, as boot does with migrate: true (same steps, same lock), so
  applications can run with migrate: false. Refuses a schema a newer version made (exit 3).
  --dry-run   print the SQL of the steps still to apply, one statement a line block, and change nothing`,
  options: { 'dry-run': { type: 'boolean' } },
  usesDatabase: true,
  async run(context) {
    noPositional('migrate', context.positionals);
    const selection = context.values as DatabaseSelection;
    const { version, latest } = await schemaVersion(selection);
    if (version === latest) {
      context.print(`schema at version ${latest}, this version's: nothing to do`);
      return EXIT_CODES.ok;
    }
    const options = moduleOptionsFor('migrate', selection, true);
    if (context.values['dry-run'] === true) {
      const backend = options.postgres ? 'postgres' : 'sqlite';
      const { getMigrations } = await import('../../storage/get-migrations');
      const steps = getMigrations(backend, { schema: options.postgres?.schema }).filter((step) => step.version > version);
      context.print(`-- schema at version ${version}; these steps bring it to ${latest} (each in one transaction)`);
      for (const step of steps) context.print(`-- step ${step.version}: ${step.name}\n${step.sql.map((sql) => `${sql};`).join('\n')}`);
      return EXIT_CODES.ok;
    }
    const runtime = await newRuntime(options);
    try {
      await runtime.storage();
    } finally {
      await runtime.onApplicationShutdown().catch(() => undefined);
    }
    context.print(`schema migrated from version ${version} to ${latest}`);
    return EXIT_CODES.ok;
  },
};
