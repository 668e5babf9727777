// Preloaded into a child process (`node -r`) to prove what the library does with `@opentelemetry/api`.
// OTEL_WATCH_MODE=hide: the package cannot be resolved, as in an application that does not install it.
// OTEL_WATCH_MODE=watch: it resolves as usual. Either way, at exit the process appends to OTEL_WATCH_FILE one line
// per request for the package ("requested") and, if any file of @opentelemetry was loaded, "loaded".
'use strict';
const Module = require('node:module');
const { appendFileSync } = require('node:fs');
const { sep } = require('node:path');

const file = process.env.OTEL_WATCH_FILE;
const hide = process.env.OTEL_WATCH_MODE === 'hide';
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
    appendFileSync(file, 'requested\n');
    if (hide) {
      const error = new Error(`Cannot find module '${request}'`);
      error.code = 'MODULE_NOT_FOUND';
      throw error;
    }
  }
  return original.call(this, request, ...rest);
};
process.on('exit', () => {
  if (Object.keys(require.cache).some((path) => path.includes(`${sep}@opentelemetry${sep}`))) {
    appendFileSync(file, 'loaded\n');
  }
});
