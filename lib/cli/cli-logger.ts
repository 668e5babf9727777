import type { LoggerService } from '@nestjs/common';

let sink: LoggerService | undefined;

/** Where the library's log lines go while a command runs: plain stderr lines (a CLI has no Nest app to format them). */
export function setCliLogSink(stderr: (text: string) => void, debug: boolean): void {
  const line = (level: string) => (message: unknown) => stderr(`${level}: ${String(message)}\n`);
  sink = { log: debug ? line('log') : () => undefined, warn: line('warning'), error: line('error'), debug: () => undefined };
}

/**
 * Routes Nest's `Logger` (which the library logs through) to the sink. Loads Nest, so it runs only once a command
 * opens a database: `--help` and usage errors answer without it.
 */
export async function routeLibraryLogs(): Promise<void> {
  if (!sink) return;
  const { Logger } = await import('@nestjs/common');
  Logger.overrideLogger(sink);
}
