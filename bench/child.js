'use strict';
// Entry point of every benchmark child process: `node child.js <module> <function> <json args>`.
// Runs one exported function of an adapter or scenario module and reports its result to the parent over IPC.
const path = require('node:path');
// First of all: lib/cpu-split.js notes which threads exist before libuv's pool starts.
require('./lib/cpu-split');

async function main() {
  const [modulePath, fn, rawArgs] = process.argv.slice(2);
  const mod = require(path.resolve(__dirname, modulePath));
  if (typeof mod[fn] !== 'function') throw new Error(`${modulePath} exports no function ${fn}`);
  const value = await mod[fn](JSON.parse(rawArgs || '{}'));
  await new Promise((resolve) => process.send({ type: 'result', value }, resolve));
  // Adapters close what they open; exit anyway so a stray handle cannot keep a child alive.
  process.exit(0);
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
