import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the application installed it (an optional peer dependency). */
export type OpenTelemetryApiModule = typeof OpenTelemetryApi;

/** The package name, required only on demand. */
export const OPENTELEMETRY_API = '@opentelemetry/api';

/** null: looked for and absent. */
let loaded: OpenTelemetryApiModule | null | undefined;

/**
 * The application's `@opentelemetry/api`, or undefined when it is not installed. Required on first call only, never
 * at import: without the package nothing of it is loaded and tracing costs nothing. Any other failure to load it (a
 * broken install: a file of it missing, a syntax error) is thrown, not taken for absence.
 */
export function loadOpenTelemetryApi(): OpenTelemetryApiModule | undefined {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(OPENTELEMETRY_API) as OpenTelemetryApiModule;
    } catch (error) {
      if (!isAbsent(error)) throw error;
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** Whether `error` says the package itself cannot be found (not a file it requires in turn). */
function isAbsent(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${OPENTELEMETRY_API}'`);
}
