'use strict';
// The chaos soak: `npm run soak` (builds dist/ first) or `node bench/soak/run.js [--flags]`. See bench/README.md.
// Exit code 1 when any job was lost, ran to completion twice without a kill to explain it, was claimed twice,
// failed, or when a child process died without being killed by the soak; 2 when the soak itself could not run.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DATA_DIR, DIST_DIR } = require('../lib/common');
const { readOptions } = require('./options');
const { sqliteBackend, postgresBackend, postgresAnswers } = require('./backends');
const { runBackend, killAllChildren } = require('./chaos');
const { printSummary, verdict } = require('./summary');

async function main() {
  const options = readOptions();
  if (options.help) {
    console.log(options.help);
    return 0;
  }
  if (!fs.existsSync(path.join(DIST_DIR, 'index.js'))) {
    throw new Error(`no build in ${DIST_DIR}: run npm run build first (npm run soak does)`);
  }
  const pgUp = options.backend === 'sqlite' ? false : await postgresAnswers(options.pgUrl);
  const both = ['sqlite', 'postgres'];
  const names = options.backend === 'both' ? both : options.backend ? [options.backend] : pgUp ? both : ['sqlite'];
  if (!options.backend && !pgUp) console.log(`NOTICE: no PostgreSQL answers at ${options.pgUrl}: soaking SQLite only.`);
  if (names.includes('postgres') && !pgUp) throw new Error(`no PostgreSQL answers at ${options.pgUrl}`);
  const cpus = os.cpus();
  console.log(
    `chaos soak: seed ${options.seed}, ${options.jobs} jobs, ${options.consumers} consumers x 4 queues x ${options.concurrency}, ` +
      `${options.producers} producers, kill -9 every ~${options.killMs} ms` +
      (names.includes('postgres')
        ? `, PG terminations every ~${options.terminateMs} ms, server restart ${options.pgRestart ? 'on' : 'off'}`
        : '') +
      (options.deleteOnComplete ? ', delete on completion and retention on (soak-a, half of soak-b, soak-c)' : '') +
      ` | ${cpus.length} x ${cpus[0] ? cpus[0].model : '?'}, Node ${process.version}`,
  );
  const results = [];
  for (const name of names) {
    const backend =
      name === 'sqlite' ? sqliteBackend({ driver: options.driver }) : postgresBackend({ adminUrl: options.pgUrl, keep: options.keep });
    results.push(await runBackend(backend, options, path.join(DATA_DIR, 'soak')));
  }
  printSummary(results, options);
  return verdict(results).ok ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
process.on('exit', killAllChildren);

main().then(
  (code) => {
    killAllChildren();
    process.exit(code);
  },
  (error) => {
    console.error(error && error.stack ? error.stack : error);
    killAllChildren();
    process.exit(2);
  },
);
