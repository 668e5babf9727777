'use strict';
// Where a process's CPU goes, per thread, from /proc (Linux): the main JavaScript thread, the threads Node starts
// with (V8's platform workers: concurrent GC marking, compilation), and the threads that appear later (libuv's
// pool, started on first use: node-sqlite3 runs every statement there, so for it this is SQLite's time). GC pauses
// of the main thread come from V8's gc performance entries. Elsewhere than Linux it reports nothing.
const fs = require('node:fs');
const { PerformanceObserver } = require('node:perf_hooks');

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Thread id -> CPU ms (user + system) of every thread of this process. */
function threadCpu() {
  const out = new Map();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const startupThreads = fs.existsSync('/proc/self/task') ? new Set(fs.readdirSync('/proc/self/task')) : new Set();

/** Starts measuring; `stop(jobs)` returns µs of CPU per job by kind (main, libuv pool, V8 helpers, GC pauses). */
function cpuSplit() {
  if (!fs.existsSync('/proc/self/task')) return { stop: () => undefined };
  const before = threadCpu();
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => list.getEntries().forEach((entry) => (gcMs += entry.duration)));
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop(jobs) {
      observer.disconnect();
      const after = threadCpu();
      const delta = (tid) => (after.get(tid) ?? 0) - (before.get(tid) ?? 0);
      let main = 0;
      let helpers = 0;
      let pool = 0;
      for (const tid of after.keys()) {
        if (tid === String(process.pid)) main += delta(tid);
        else if (startupThreads.has(tid)) helpers += delta(tid);
        else pool += delta(tid);
      }
      const perJob = (ms) => (ms * 1000) / jobs;
      return {
        mainUs: perJob(main),
        gcUs: perJob(gcMs),
        jsUs: perJob(Math.max(0, main - gcMs)),
        poolUs: perJob(pool),
        helpersUs: perJob(helpers),
        totalUs: perJob(main + helpers + pool),
      };
    },
  };
}

module.exports = { cpuSplit };
