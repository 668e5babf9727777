import { JOBS_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

/**
 * The W3C trace context a job was added under (OpenTelemetry), so the process that runs it continues the trace of
 * the request that enqueued it. Nullable without a default: SQLite adds it without rewriting the table, and jobs
 * added before it (or without tracing) read NULL. Never indexed, never filtered on.
 */
export const SQLITE_MIGRATION_TRACE_CONTEXT: SchemaMigration = {
  version: 11,
  name: 'trace-context',
  statements: [
    // JSON of the W3C carrier: {"traceparent": "00-…", "tracestate"?: "…", "link"?: true} (see telemetry/trace-context.ts).
    `ALTER TABLE ${JOBS_TABLE} ADD COLUMN trace_context TEXT`,
  ],
};
