import { CliUsageError } from '../../errors/cli-usage.error';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { CliCommand } from '../cli-command';
import { DEFAULT_SCHEMA, assertPostgresUrl, installedSqliteDriver, redactUrl } from '../cli-database';
import { noPositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const PROMOTE_COMMAND: CliCommand = {
  name: 'promote',
  summary: 'copy a whole SQLite queue into PostgreSQL, in one transaction',
  help: `Usage: nestjs-sqlite-queue promote --from <sqlite file> --to <postgres url> [--schema s] [--driver d]
  Copies every job (ids, names, priorities, run times, attempts, keys, results, errors, logs, flows), the queue
  state (paused, limits) and the schedules (with their next run) into an empty PostgreSQL schema, in one
  transaction, verified (counts per queue and status, id range) before it commits. The id sequence moves above
  the copied ids. The file is opened read-only and never changed: it is the rollback.
  Refuses (exit 5, nothing written) while a job runs under a live lease or a process is live on the file (its
  processes table names them: stop them first), or when the schema already holds jobs. Stop every process (those
  that only add jobs too: the file does not list them), promote, point forRoot at postgres: { url }, start again.
  --from <file>   the SQLite queue file (at this version's schema: run migrate on it first if needed)
  --to <url>      postgres://user:pass@host:5432/db
  --schema <s>    the target schema (default ${DEFAULT_SCHEMA})
  --driver <d>    sqlite3 or better-sqlite3, to read the file with (default: the one installed)
  --force         copy although processes are listed live (one killed with -9 stays listed for up to 90 s);
                  jobs they add or finish during the copy are not in it`,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    schema: { type: 'string' },
    driver: { type: 'string' },
    force: { type: 'boolean' },
  },
  usesDatabase: false,
  async run(context) {
    noPositional('promote', context.positionals);
    const { from, to, driver } = context.values as Record<string, string | undefined>;
    if (from === undefined || to === undefined) throw new CliUsageError('promote', 'needs --from <sqlite file> and --to <postgres url>');
    assertPostgresUrl('promote', '--to', to);
    const schema = (context.values.schema as string | undefined) ?? DEFAULT_SCHEMA;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,49}$/.test(schema)) {
      throw new CliUsageError(
        'promote',
        `--schema must be an identifier of letters, digits and underscores, at most 50 characters, got ${JSON.stringify(schema)}`,
      );
    }
    if (driver !== undefined && driver !== 'sqlite3' && driver !== 'better-sqlite3') {
      throw new CliUsageError('promote', `--driver must be sqlite3 or better-sqlite3, got ${JSON.stringify(driver)}`);
    }
    const toLabel = redactUrl(to);
    context.notice(`promote: copying ${from} into schema "${schema}" of ${toLabel}`);
    const { promoteQueueDatabase } = await import('../promote/promote-queue-database');
    const report = await promoteQueueDatabase({
      from,
      to,
      toLabel,
      schema,
      driver: (driver as SqliteDriverName | undefined) ?? installedSqliteDriver(),
      progress: (line) => context.notice(line),
      force: context.values.force === true,
    });
    const { rows, ids } = report;
    context.print(
      `promoted ${rows.nest_queue_jobs} job(s) (ids ${ids.min}-${ids.max}, next id ${report.sequence + 1}), ` +
        `${rows.nest_queue_queues} queue state row(s), ${rows.nest_queue_schedules} schedule(s) in ${(report.ms / 1000).toFixed(1)} s: ` +
        `point forRoot at postgres: { url${schema === DEFAULT_SCHEMA ? '' : `, schema: '${schema}'`} } and start the workers`,
    );
    return EXIT_CODES.ok;
  },
};
