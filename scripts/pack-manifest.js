/**
 * Keeps `prepare` out of the packed package.json, and only there. `prepare` builds dist/ where npm builds from
 * source: `npm ci` / `npm install` in this repository, and an install from git (`npm install git+file://...`, npm
 * runs the dependency's `prepare` in its clone). An install from a tarball never runs it, yet npm 11 lists a
 * tarball's `prepare` among the "install scripts not yet covered by allowScripts" of the installing app. So the
 * `prepack` script builds dist/ and runs `node scripts/pack-manifest.js strip`, which sets the full package.json
 * aside and writes it without `prepare`, and `postpack` runs `restore`, which puts the full file back unchanged.
 */
const { existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const MANIFEST = join(__dirname, '..', 'package.json');
/** The full package.json while a pack runs (not in `files`, so never packed; gitignored). */
const ASIDE = `${MANIFEST}.full`;

/** Sets the full package.json aside and writes the one to pack: the same, without `scripts.prepare`. */
function strip() {
  if (existsSync(ASIDE)) {
    // An earlier pack stopped before its postpack: that file is the full manifest, the current one is stripped.
    throw new Error(`${ASIDE} exists: an earlier pack did not finish. Run \`node scripts/pack-manifest.js restore\` first.`);
  }
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  delete manifest.scripts.prepare;
  // package.json is never missing nor half written: `npm test` runs Prettier (which reads it) beside the consumer
  // test's pack, so the stripped file is written aside and renamed over it.
  writeFileSync(ASIDE, text);
  writeFileSync(`${MANIFEST}.stripped`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${MANIFEST}.stripped`, MANIFEST);
}

/** Puts the full package.json back. */
function restore() {
  if (existsSync(ASIDE)) renameSync(ASIDE, MANIFEST);
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exitCode = 2;
}
