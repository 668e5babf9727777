'use strict';
// One soak run on one backend: consumers and producers as child processes, random kill -9s of both (each
// restarted at once), on PostgreSQL backend terminations and a server restart; then a drain with no faults, a
// graceful stop, and the analysis of the ledgers against the job table.
const fs = require('node:fs');
const path = require('node:path');
const { fork } = require('node:child_process');
const { setTimeout: sleep } = require('node:timers/promises');
const { seededRandom, mixSeed } = require('./random');
const { analyze } = require('./analyze');
const { DELETE_MODE } = require('./soak-app');
const { checks } = require('./summary');

const QUEUES = ['soak-a', 'soak-b', 'soak-c', 'soak-d'];
const STDERR_TAIL = 4000;
/** The waiters' heartbeat counts for 15 s; retention deletes what was marked meanwhile within its next sweeps. */
const WAITERS_GRACE_MS = 25_000;

/** Every live child of every run, so the orchestrator can kill them all whatever way it exits. */
const liveChildren = new Set();

function killAllChildren() {
  for (const child of liveChildren) child.kill('SIGKILL');
}

async function runBackend(backend, options, dataDir) {
  const dir = path.join(dataDir, `${backend.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(dir, { recursive: true });
  const spec = await backend.prepare(dir);
  const random = seededRandom(mixSeed(options.seed, backend.name.length));
  const t0 = Date.now();
  const log = (message) => console.log(`[soak ${backend.name} ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${message}`);
  const startedAt = t0 + 1500; // producers' schedule starts once the first processes have booted
  const killedPids = new Set();
  const kills = { consumer: 0, producer: 0 };
  const deaths = []; // child exits the orchestrator did not cause
  const notStopped = [];
  const slots = new Map(); // `${role}-${slot}` -> { role, slot, child, done }
  let phase = 'chaos'; // chaos -> drain -> stop
  const faults = { terminations: 0, terminationRounds: 0, restarts: [], faultErrors: [], writeLocks: 0, writeLockMs: 0 };

  const spawn = (role, slot) => {
    const quota = Math.floor(options.jobs / options.producers) + (slot < options.jobs % options.producers ? 1 : 0);
    const args = {
      dir,
      backend: spec,
      queues: QUEUES,
      concurrency: options.concurrency,
      slot,
      quota,
      seed: options.seed,
      startedAt,
      produceMs: options.produceMs,
      deleteOnComplete: options.deleteOnComplete,
    };
    const child = fork(path.join(__dirname, `${role}.js`), [JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    liveChildren.add(child);
    const entry = slots.get(`${role}-${slot}`) || { role, slot, done: false };
    entry.child = child;
    entry.stopping = false;
    slots.set(`${role}-${slot}`, entry);
    const spawnedAt = Date.now();
    let ready = false;
    let output = '';
    const keep = (chunk) => (output = (output + chunk).slice(-STDERR_TAIL));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('message', (message) => {
      if (message && message.type === 'done') entry.done = true;
      if (message && message.type === 'ready') ready = true;
    });
    child.on('exit', (code, signal) => {
      liveChildren.delete(child);
      const asked = killedPids.has(child.pid) || (entry.stopping && code === 0);
      if (!asked) {
        fs.writeFileSync(path.join(dir, `output-${child.pid}.txt`), output);
        deaths.push({ role, slot, pid: child.pid, code, signal, phase, ready, spawnedAt, exitedAt: Date.now(), error: firstError(output) });
        log(`${role} ${slot} (pid ${child.pid}) DIED UNASKED ${ready ? 'while running' : 'while booting'}: code ${code} signal ${signal}`);
      }
      // A process that died unasked (e.g. could not boot while the server restarts) is retried less eagerly.
      const delay = asked ? 50 : 500;
      if (entry.child === child && !entry.stopping && phase !== 'stop') setTimeout(() => phase !== 'stop' && spawn(role, slot), delay);
    });
    return child;
  };

  for (let slot = 0; slot < options.consumers; slot++) spawn('consumer', slot);
  for (let slot = 0; slot < options.producers; slot++) spawn('producer', slot);
  log(`${options.consumers} consumers, ${options.producers} producers, ${options.jobs} jobs over ${options.produceMs / 1000} s`);
  log(`ledgers in ${dir}`);

  const timers = [];
  const every = (meanMs, fn) => {
    if (!meanMs) return;
    const schedule = () =>
      timers.push(
        setTimeout(
          async () => {
            if (phase !== 'chaos') return;
            await fn();
            schedule();
          },
          meanMs * (0.5 + random()),
        ),
      );
    schedule();
  };
  every(options.killMs, () => {
    const alive = (child) => child && child.exitCode === null && child.signalCode === null && !killedPids.has(child.pid);
    const targets = [...slots.values()].filter((entry) => alive(entry.child) && !entry.done);
    if (!targets.length) return;
    const target = random.pick(targets);
    killedPids.add(target.child.pid);
    kills[target.role]++;
    target.child.kill('SIGKILL');
  });
  const fault = async (what, fn) => {
    try {
      await fn();
    } catch (error) {
      faults.faultErrors.push(`${what}: ${error.message}`);
      log(`${what} failed: ${error.message}`);
    }
  };
  let restarting = Promise.resolve();
  let serverRestarting = false; // no terminations while the server is down: nothing to terminate
  if (backend.terminateBackends) {
    every(
      options.terminateMs,
      () =>
        serverRestarting ||
        fault('terminate', async () => {
          faults.terminations += await backend.terminateBackends(random);
          faults.terminationRounds++;
        }),
    );
  }
  // SQLite: another connection holds the write lock for 0.5 to 3 s now and then, below the 5 s busy timeout: every
  // outcome write (snoozes included) must wait it out and land, never leave its job to an expired lease.
  if (backend.holdWriteLock && options.writeLockMs > 0) {
    every(options.writeLockMs, () =>
      fault('write lock', async () => {
        const ms = await backend.holdWriteLock(random.int(500, 3000));
        if (ms > 0) {
          faults.writeLocks++;
          faults.writeLockMs += ms;
        }
      }),
    );
  }
  if (backend.restartServer && options.pgRestart) {
    timers.push(
      setTimeout(
        () => {
          if (phase !== 'chaos') return;
          log('restarting the PostgreSQL server');
          serverRestarting = true;
          restarting = fault('restart', async () => {
            const from = Date.now();
            const ms = await backend.restartServer().finally(() => (serverRestarting = false));
            faults.restarts.push({ from, to: Date.now(), ms });
            log(`PostgreSQL server restarted in ${ms} ms`);
          });
        },
        startedAt - t0 + options.produceMs * 0.4,
      ),
    );
  }

  // Delete mode: once a second, how many completed rows of the deleting queue are in the table. Its completions
  // delete their rows, so only the rows something still reads are marked completed (throttled jobs in their window,
  // left to retention); any other would mean the completion marked instead of deleting (e.g. a waiter's heartbeat).
  // A completion made while some process waits for jobs marks its row (the waiter reads it) and retention deletes it
  // a moment later: a sample within WAITERS_GRACE_MS of the waiters' heartbeat, read before and after it, is skipped.
  const lingering = { samples: 0, max: 0, sum: 0, errors: 0, skippedForWaiters: 0 };
  let sampling = options.deleteOnComplete && backend.completedRowsNotHeld;
  const waitersLive = (seenAt) => seenAt !== null && Date.now() - seenAt < WAITERS_GRACE_MS;
  const sample = async () => {
    while (sampling) {
      try {
        const before = await backend.waitersSeenAt();
        const n = await backend.completedRowsNotHeld(DELETE_MODE.deletingQueue);
        if (waitersLive(before) || waitersLive(await backend.waitersSeenAt())) lingering.skippedForWaiters++;
        else if (n !== null) {
          lingering.samples++;
          lingering.sum += n;
          lingering.max = Math.max(lingering.max, n);
        }
      } catch {
        lingering.errors++; // the server restarting, or the file not there yet
      }
      await sleep(1000);
    }
  };
  const sampled = sampling ? sample() : Promise.resolve();

  // Chaos until every producer has acknowledged its quota, or the cap.
  const producers = () => [...slots.values()].filter((entry) => entry.role === 'producer');
  while (!producers().every((entry) => entry.done) && Date.now() - t0 < options.maxMs) await sleep(200);
  const capped = !producers().every((entry) => entry.done);
  phase = 'drain';
  timers.forEach(clearTimeout);
  await restarting;
  const chaosMs = Date.now() - t0;
  log(`chaos over after ${(chaosMs / 1000).toFixed(1)} s${capped ? ' (duration cap: producers stopped short)' : ''}; draining`);
  for (const entry of producers())
    if (!entry.done && entry.child) {
      entry.stopping = true;
      entry.child.send({ type: 'stop' });
    }

  // Drain: no more faults; wait until no job is pending or running.
  const drainDeadline = Date.now() + options.drainMs;
  let open;
  for (;;) {
    try {
      open = await backend.openJobs();
    } catch (error) {
      open = null;
    }
    if (open === 0 || Date.now() > drainDeadline) break;
    await sleep(250);
  }
  const drainedMs = Date.now() - t0;
  sampling = false;
  await sampled;
  log(open === 0 ? `drained after ${((drainedMs - chaosMs) / 1000).toFixed(1)} s` : `drain timed out with ${open} jobs open`);

  // Graceful stop of everything still running; a child that does not stop in time is killed and reported.
  phase = 'stop';
  const stopping = [];
  for (const entry of slots.values()) {
    const { child } = entry;
    if (!child || child.exitCode !== null || child.signalCode !== null) continue;
    entry.stopping = true;
    stopping.push(
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          notStopped.push(`${entry.role} ${entry.slot} (pid ${child.pid})`);
          killedPids.add(child.pid);
          child.kill('SIGKILL');
        }, 20_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ type: 'stop' });
      }),
    );
  }
  await Promise.all(stopping);

  // A process that could not boot because the server was restarting (spawned before it was back, died before
  // it was up) met a down database, as any application would: reported, not counted as died unasked.
  const duringRestart = (death) =>
    !death.ready && faults.restarts.some((restart) => death.exitedAt >= restart.from && death.spawnedAt <= restart.to + 1000);
  const bootRefused = deaths.filter(duringRestart);
  // Likewise a process whose boot connection one of the soak's own pg_terminate_backend rounds cut: the open of the
  // queue database fails (the library retries nothing at boot) and says so, naming the termination or the lost connection.
  const cutByTermination = (death) =>
    !death.ready &&
    /DatabaseOpenError.*(terminating connection due to administrator command|connection to the server was lost)/.test(death.error);
  const bootCut = deaths.filter((death) => !duringRestart(death) && cutByTermination(death));
  const diedUnasked = deaths.filter((death) => !duringRestart(death) && !cutByTermination(death));
  const rows = await backend.rows();
  const deleting = options.deleteOnComplete ? { queues: Object.keys(DELETE_MODE.queueRetention) } : undefined;
  const result = analyze({ dir, rows, killedPids, outages: faults.restarts, deleting });
  const libraryLog = readLibraryLogs(dir);
  await backend.close();
  const outcome = {
    backend: backend.label,
    dir,
    capped,
    drained: open === 0,
    chaosMs,
    drainedMs,
    kills,
    killed: killedPids.size,
    diedUnasked,
    bootRefused,
    bootCut,
    notStopped,
    faults,
    libraryLog,
    lingering: options.deleteOnComplete ? lingering : undefined,
    ...result,
  };
  // The ledgers are what a failed check or an unexplained re-run is traced with afterwards: kept whenever there is one.
  outcome.kept =
    Boolean(options.keep) || Object.values(checks(outcome)).some((count) => count > 0) || outcome.reruns.unexplained.length > 0;
  if (!outcome.kept) fs.rmSync(dir, { recursive: true, force: true });
  return outcome;
}

/** The first line of a dead child's output that names an error, with the line after it. */
function firstError(output) {
  const lines = output.split('\n');
  const at = lines.findIndex((line) => /error|exception|fatal/i.test(line) && !/^\s+at /.test(line));
  return at < 0
    ? lines.slice(-3).join(' | ')
    : lines
        .slice(at, at + 2)
        .join(' | ')
        .slice(0, 600);
}

/** Counts of what the children's library instances logged (warnings, errors), with a few distinct samples. */
function readLibraryLogs(dir) {
  const counts = { warn: 0, error: 0, fatal: 0, 'producer-error': 0 };
  const samples = new Map();
  for (const file of fs.readdirSync(dir).filter((name) => name.startsWith('log-'))) {
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean)) {
      const [level, , ...rest] = line.split(' ');
      counts[level] = (counts[level] || 0) + 1;
      const text = rest.join(' ');
      const shape = `${level} ${text
        .replace(/soak-[a-d]/g, 'Q')
        .replace(/\d+/g, 'N')
        .slice(0, 90)}`;
      if (!samples.has(shape)) samples.set(shape, { count: 0, example: `${level}: ${text.slice(0, 240)}` });
      samples.get(shape).count++;
    }
  }
  return { counts, samples: [...samples.values()].sort((a, b) => b.count - a.count).slice(0, 8) };
}

module.exports = { runBackend, killAllChildren };
