#!/usr/bin/env node
/**
 * The `nestjs-sqlite-queue` command (the package's `bin`): operates a queue database from a shell, without the
 * application's code. Everything it does goes through the library's own storage and admin code.
 */
import 'reflect-metadata';
import { runCli } from './run-cli';

/**
 * A reader that stops early (`… | head -1`) closes the pipe: the rest of the output has nowhere to go, which is no
 * error of the command's. It finishes (a write it made stays made, the database is closed) and prints no more, as
 * Unix tools do, instead of dying on an unhandled EPIPE with a stack trace.
 */
const closed = { stdout: false, stderr: false };
for (const name of ['stdout', 'stderr'] as const) {
  process[name].on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed[name] = true;
  });
}

void runCli(process.argv.slice(2), {
  stdout: (text) => closed.stdout || process.stdout.write(text),
  stderr: (text) => closed.stderr || process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
  // The database is closed by now; should a driver still hold the event loop, do not hang a script on it.
  setTimeout(() => process.exit(code), 2000).unref();
});
