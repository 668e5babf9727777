#!/usr/bin/env node
/**
 * The `nestjs-sqlite-queue` command (the package's `bin`): operates a queue database from a shell, without the
 * application's code. Everything it does goes through the library's own storage and admin code.
 */
import 'reflect-metadata';
import { runCli } from './run-cli';

void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
  // The database is closed by now; should a driver still hold the event loop, do not hang a script on it.
  setTimeout(() => process.exit(code), 2000).unref();
});
