'use strict';
// Append-only ledgers of the soak's child processes: one file per process (consumers) or per producer slot.
// Each record is one line written with a single write(2) on a file opened O_APPEND before the process goes on, so
// it is in the kernel when the next instruction runs: a kill -9 cannot take it back (only a machine crash could,
// which the soak does not simulate). A line cut short by a kill inside write(2) has no newline and is ignored.
const fs = require('node:fs');

/** Opens `file` for appending; returns `write(fields...)`, which writes one space-separated line synchronously. */
function openLedger(file) {
  const fd = fs.openSync(file, 'a');
  const write = (...fields) => {
    fs.writeSync(fd, `${fields.join(' ')}\n`);
  };
  /** Several lines in one write(2) (the acknowledgements of one addBulk). */
  write.many = (lines) => {
    if (lines.length) fs.writeSync(fd, `${lines.map((fields) => fields.join(' ')).join('\n')}\n`);
  };
  return write;
}

/** The complete lines of a ledger file, each split into fields; [] when it does not exist. */
function readLedger(file) {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n');
  if (end < 0) return [];
  return text
    .slice(0, end)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));
}

module.exports = { openLedger, readLedger };
