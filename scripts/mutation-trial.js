/**
 * The mutation trial: one-line realistic bugs planted one at a time in lib/, each run against the test
 * files most likely to catch it. A mutation is caught when jest reports a failed test; missed when the files pass;
 * an error when jest failed without a failed test (a suite that did not compile or boot, a global setup that threw):
 * that is no catch, and the table says so.
 *
 * Every mutation names its `from` text, which must occur exactly once in its file: the script refuses to run when
 * one does not (the source moved on), so the list cannot rot silently into mutations that change nothing. The file
 * is restored in a `finally`, and on SIGINT/SIGTERM (the jest run in flight is stopped first).
 *
 *   node scripts/mutation-trial.js [--only <id>[,<id>...]] [--area <area>[,<area>...]] [--json <path>]
 *                                  [--with <test files, comma-separated>] [--quick] [--check] [--list]
 *
 *   --only   runs the named mutations only
 *   --area   runs the mutations whose `area` is one of these (with --only: both filters apply)
 *   --json   writes the results there as JSON (default: the table on stdout only)
 *   --with   runs these test files instead of each mutation's own (a second look at a missed one)
 *   --quick  runs what `npm run test:quick` runs (unit + e2e on node-sqlite3, PostgreSQL off) instead
 *   --check  only checks that every `from` occurs exactly once, runs nothing
 *   --list   prints the mutations and their test files, runs nothing
 *
 * The jest runs use the suite's own environment: every backend of the run (both SQLite drivers, and PostgreSQL at
 * QUEUE_TEST_POSTGRES_URL when it answers; QUEUE_TEST_BACKENDS / QUEUE_TEST_POSTGRES narrow it as in the suite).
 * One jest at a time. Plain Node, no dependency.
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const T = '${T}';

/**
 * The mutations. `tests`: the 1-3 files most likely to catch it (found by grepping the tests for the behaviour).
 * @type {{ id: string, area: string, file: string, from: string, to: string, tests: string[], why: string }[]}
 */
const MUTATIONS = [
  // ---- fencing: the outcome statements' attempt / owner / status fences
  {
    id: 'fence-sqlite-complete-status',
    area: 'fencing',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: `AND +${T}.locked_by = ? AND +${T}.status = 'running'`,
    to: `AND +${T}.locked_by = ?`,
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts'],
    why: 'SQLite completion without the status fence: a job cancelled while it ran is overwritten as completed',
  },
  {
    id: 'fence-sqlite-fail-attempt',
    area: 'fencing',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: "WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;\n\nconst UPDATE_PROGRESS_SQL",
    to: "WHERE id = ? AND locked_by = ? AND attempts >= ? AND status = 'running'`;\n\nconst UPDATE_PROGRESS_SQL",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts'],
    why: "SQLite fail with `>=` for the attempt fence: an earlier attempt's failure (same fixed workerId) fails the next attempt",
  },
  {
    id: 'fence-pg-complete-attempt',
    area: 'fencing',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: "WHERE t.id = ($2::bigint[])[i] AND t.attempts = ($3::int[])[i] AND t.locked_by = $5 AND t.status = 'running'\n        RETURNING t.id\n      ),\n      ${notifyFinished(tables, 'completed', '$1')}",
    to: "WHERE t.id = ($2::bigint[])[i] AND t.locked_by = $5 AND t.status = 'running'\n        RETURNING t.id\n      ),\n      ${notifyFinished(tables, 'completed', '$1')}",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts'],
    why: "PostgreSQL completion without the attempt fence: a stale attempt's result completes the job's newer attempt",
  },
  {
    id: 'pg-complete-chunk',
    area: 'fencing',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: 'const chunk = valid.slice(start, start + COMPLETION_CHUNK);',
    to: 'const chunk = valid.slice(start, start + COMPLETION_CHUNK - 1);',
    tests: ['test/postgres-completion-plan.e2e-spec.ts'],
    why: 'PostgreSQL completion batches cut into statements lose the last job of each piece: it stays running until its lease expires',
  },
  // ---- heartbeats
  {
    id: 'heartbeat-sqlite-extend-seconds',
    area: 'heartbeats',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: 'Math.round(leaseDuration), now, ids, workerId',
    to: 'Math.round(leaseDuration / 1000), now, ids, workerId',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/lease-heartbeat.e2e-spec.ts'],
    why: 'SQLite lease extension in seconds, not ms: every heartbeat leaves a lease that ends at once',
  },
  {
    id: 'heartbeat-pg-extend-status',
    area: 'heartbeats',
    file: 'lib/storage/postgres/sql/leases.sql.ts',
    from: "AND locked_by = $4 AND status = 'running' FOR UPDATE SKIP LOCKED",
    to: 'AND locked_by = $4 FOR UPDATE SKIP LOCKED',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL heartbeat without the status fence: a cancelled or finished row's lease is extended",
  },
  {
    id: 'heartbeat-keeper-beat',
    area: 'heartbeats',
    file: 'lib/poller/lease-keeper.ts',
    from: 'Math.min(Math.floor(settings.leaseDuration / 3), settings.pollInterval)',
    to: 'Math.min(Math.floor(settings.leaseDuration), settings.pollInterval)',
    tests: ['test/lease-keeper.spec.ts', 'test/lease-heartbeat.e2e-spec.ts'],
    why: 'the lease keeper beats once per lease instead of three times: a lease lapses between two beats',
  },
  {
    id: 'heartbeat-timer-not-rearmed',
    area: 'heartbeats',
    file: 'lib/utils/periodic-task.ts',
    from: 'this.interval = setInterval(() => this.tick(), this.options.period);',
    to: 'this.interval = setTimeout(() => this.tick(), this.options.period);',
    tests: ['test/periodic-task.spec.ts', 'test/lease-keeper.spec.ts', 'test/lease-heartbeat.e2e-spec.ts'],
    why: "the periodic task's timer (heartbeat, recovery, retention) fires once and is not re-armed",
  },
  // ---- hand-back
  {
    id: 'handback-sqlite-release-attempts',
    area: 'hand-back',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: "SET status = 'pending', attempts = attempts - 1, locked_by = NULL",
    to: "SET status = 'pending', attempts = attempts, locked_by = NULL",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/shutdown.e2e-spec.ts'],
    why: 'a job handed back at shutdown keeps the attempt it never ran: clean restarts eat its attempts',
  },
  {
    id: 'handback-waiting-off-by-one',
    area: 'hand-back',
    file: 'lib/worker/worker-slots.ts',
    from: 'return this.waiting.splice(0);',
    to: 'return this.waiting.splice(1);',
    tests: ['test/worker-slots.spec.ts', 'test/shutdown.e2e-spec.ts', 'test/prefetch.e2e-spec.ts'],
    why: 'the first job waiting for a slot is not handed back at shutdown: it stays claimed until its lease expires',
  },
  // ---- wake-up timers
  {
    id: 'handoff-held-bound',
    area: 'hand-back',
    file: 'lib/worker/worker-slots.ts',
    from: 'Math.min(offered, this.maxHeld - this.started - this.waiting.length)',
    to: 'offered',
    tests: ['test/worker-slots.spec.ts'],
    why: 'a claim ignores the outcomes not yet landed: a slot whose writes land slowly lets a process hold more than 3 x concurrency jobs for a crash to re-run',
  },
  {
    id: 'wake-landed-write-at-bound',
    area: 'wake-up timers',
    file: 'lib/worker/queue-worker.ts',
    from: 'if (!hadQueuedWrite || this.slots.freeSlots > offered) this.context.onSlotFreed();',
    to: 'if (!hadQueuedWrite) this.context.onSlotFreed();',
    tests: ['test/queue-worker.spec.ts'],
    why: 'a write that lands while the jobs held are at their bound wakes nobody: the poller claims again only at its fallback timer',
  },
  {
    id: 'wake-poller-timer-not-rearmed',
    area: 'wake-up timers',
    file: 'lib/poller/shared-poller.ts',
    from: '    this.wakeTimes.splice(0, due);\n    this.wake();\n    this.armWakeTimer();',
    to: '    this.wakeTimes.splice(0, due);\n    this.wake();',
    tests: ['test/shared-poller.spec.ts', 'test/wake-up.e2e-spec.ts'],
    why: "the poller's wake-up timer is not re-armed for the next due time once it fired: later delayed jobs wait for the poll",
  },
  {
    id: 'wake-insert-delayed',
    area: 'wake-up timers',
    file: 'lib/producer/add-writer.ts',
    from: '(runAt > now && runAt < first ? runAt : first)',
    to: '(runAt < now && runAt < first ? runAt : first)',
    tests: ['test/wake-up.e2e-spec.ts'],
    why: 'add() of a delayed job sets no wake-up for its due time (flipped comparison): it waits for the fallback poll',
  },
  // ---- schedule compare-and-set
  {
    id: 'schedule-sqlite-advance-cas',
    area: 'schedule CAS',
    file: 'lib/storage/sqlite/sql/schedules.sql.ts',
    from: 'WHERE queue = ? AND name = ? AND next_run_at = ?`;',
    to: 'WHERE queue = ? AND name = ? AND next_run_at >= ?`;',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/schedules.e2e-spec.ts'],
    why: 'SQLite schedule advance with `>=`: a writer holding a stale read moves the schedule back',
  },
  {
    id: 'schedule-pg-advance-cas',
    area: 'schedule CAS',
    file: 'lib/storage/postgres/sql/schedules.sql.ts',
    from: 'WHERE queue = $1 AND name = $11 AND next_run_at = $13',
    to: 'WHERE queue = $1 AND name = $11 AND next_run_at >= $13',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/schedules.e2e-spec.ts'],
    why: 'PostgreSQL schedule advance with `>=`: a stale writer moves the schedule back and enqueues an old occurrence',
  },
  // ---- limiter bounds
  {
    id: 'limit-sqlite-rate-window',
    area: 'limiter bounds',
    file: 'lib/storage/sqlite/sql/claim.sql.ts',
    from: 'THEN rate_max - window_count ELSE rate_max END',
    to: 'THEN rate_max - window_count + 1 ELSE rate_max END',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: 'SQLite rate window off by one: a window lets one job more than rate_max through',
  },
  {
    id: 'limit-pg-rate-window',
    area: 'limiter bounds',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: 'THEN locked.rate_max - locked.window_count ELSE locked.rate_max END',
    to: 'THEN locked.rate_max - locked.window_count + 1 ELSE locked.rate_max END',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: 'PostgreSQL rate window off by one: a window lets one job more than rate_max through',
  },
  {
    id: 'limit-sqlite-global-lease',
    area: 'limiter bounds',
    file: 'lib/storage/sqlite/sql/claim.sql.ts',
    from: "WHERE status = 'running' AND lease_until > ? AND queue = ?)`;",
    to: "WHERE status = 'running' AND lease_until < ? AND queue = ?)`;",
    tests: ['test/storage-cas.e2e-spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: 'SQLite global concurrency counts only expired leases (flipped comparison): live running jobs leave the bound',
  },
  {
    id: 'limit-sqlite-group-busy',
    area: 'limiter bounds',
    file: 'lib/storage/sqlite/sql/group-claim.sql.ts',
    from: '+ coalesce((SELECT n FROM busy WHERE busy.g IS j.job_group), 0)',
    to: '+ 0',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/groups.e2e-spec.ts'],
    why: "SQLite group concurrency forgets a group's running jobs: each round gives a busy group its full bound again",
  },
  // ---- flow bounds
  {
    id: 'flow-sqlite-ready-running-sibling',
    area: 'flow bounds',
    file: 'lib/storage/sqlite/migrations/007-flow-failure-walk.migration.ts',
    from: "sibling.status IN ('pending', 'running') AND sibling.id <> top.id",
    to: "sibling.status = 'pending' AND sibling.id <> top.id",
    tests: ['test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'SQLite: a parent is released when its last pending child finishes while a sibling still runs',
  },
  {
    id: 'flow-sqlite-continue-policy',
    area: 'flow bounds',
    file: 'lib/storage/sqlite/migrations/007-flow-failure-walk.migration.ts',
    from: "AND (NEW.status = 'completed' OR ${T}.on_child_failure <> 'fail')",
    to: "AND NEW.status = 'completed'",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: "SQLite: a parent with onChildFailure 'continue' is never released when its last child failed",
  },
  {
    id: 'flow-pg-ready-running-sibling',
    area: 'flow bounds',
    file: 'lib/storage/postgres/migrations/007-flow-failure-walk.migration.ts',
    from: "WHERE parent_id = up.id AND status IN ('pending', 'running')) THEN",
    to: "WHERE parent_id = up.id AND status = 'pending') THEN",
    tests: ['test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'PostgreSQL: a parent is released when its last pending child finishes while a sibling still runs',
  },
  // ---- lease recovery
  {
    id: 'recovery-sqlite-expiry',
    area: 'lease recovery',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: '(RECOVER_EXPIRED_SQL, [now, now, window, now, now, now, rowIds(skip)])',
    to: '(RECOVER_EXPIRED_SQL, [now, now, window, now, now, now + window, rowIds(skip)])',
    tests: ['test/storage-cas.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts', 'test/lease-heartbeat.e2e-spec.ts'],
    why: 'SQLite recovery compares leases with now + the jitter window: it takes leases that have not expired from live owners',
  },
  {
    id: 'recovery-pg-attempt-limit',
    area: 'lease recovery',
    file: 'lib/storage/postgres/sql/leases.sql.ts',
    from: "SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END",
    to: "SET status = CASE WHEN attempts > max_attempts THEN 'failed' ELSE 'pending' END",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'PostgreSQL recovery off by one: a job whose lease expired on its last attempt is requeued instead of failed',
  },
  // ---- retry back-off
  {
    id: 'retry-backoff-exponent',
    area: 'retry back-off',
    file: 'lib/utils/backoff.util.ts',
    from: 'Math.min(Math.max(attempt - 1, 0), 52)',
    to: 'Math.min(Math.max(attempt, 0), 52)',
    tests: ['test/backoff.spec.ts', 'test/retry-policy.spec.ts'],
    why: 'exponential back-off off by one: the first retry waits 2 x delay',
  },
  // ---- unique key takeover
  {
    id: 'key-takeover-no-retry',
    area: 'unique key takeover',
    file: 'lib/storage/shared/pair-enqueued.ts',
    from: 'roundsLeft = MAX_ENQUEUE_ROUNDS - 1,',
    to: 'roundsLeft = 0,',
    tests: ['test/pair-enqueued.spec.ts', 'test/unique-keys.e2e-spec.ts'],
    why: 'an add whose key holder finished between the insert and the read throws instead of taking the freed key over',
  },
  // ==== tests/a block: group wrap, throttle past its window, debounce of a started job, dead letters, redrive,
  // snooze wake-up, explain of an expired lease (kept together so the parallel additions rebase cleanly)
  // ---- groups: the round-robin cursor across the end of the group list
  {
    id: 'groups-cursor-wrap',
    area: 'groups',
    file: 'lib/poller/group-claim-cursors.ts',
    from: '(last.wrapped ?? last.ahead) as string',
    to: '(last.ahead ?? last.wrapped) as string',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'a round that wrapped past the last group leaves the cursor at the last group: the next round serves the first groups again',
  },
  {
    id: 'groups-sqlite-walk-no-wrap',
    area: 'groups',
    file: 'lib/storage/sqlite/sql/group-claim.sql.ts',
    from: 'job_group IS NOT NULL AND job_group <= ?),',
    to: 'job_group IS NOT NULL AND job_group > ?),',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'SQLite group walk that does not wrap (flipped comparison): a round that reaches the last group takes fewer jobs than it may',
  },
  {
    id: 'groups-pg-walk-no-wrap',
    area: 'groups',
    file: 'lib/storage/postgres/sql/group-claim.sql.ts',
    from: "headOf(T, 'w.queue', 'job_group <= bound.after')",
    to: "headOf(T, 'w.queue', 'job_group > bound.after')",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'PostgreSQL group walk that does not wrap (flipped comparison): a round that reaches the last group takes fewer jobs than it may',
  },
  // ---- group limiter: a group's window bound in the claim, and the walk passing over a held-back group
  {
    id: 'group-limiter-sqlite-no-bound',
    area: 'group limiter',
    file: 'lib/storage/sqlite/sql/group-claim.sql.ts',
    from: "AND rn <= ${groupAllowance('ranked.g')}",
    to: "AND rn <= ${groupAllowance('ranked.g')} + 1",
    tests: ['test/group-limiter.e2e-spec.ts'],
    why: 'SQLite claim that lets one more job of a group start than its window allows',
  },
  {
    id: 'group-limiter-sqlite-walk-stops-at-held',
    area: 'group limiter',
    file: 'lib/storage/sqlite/sql/group-claim.sql.ts',
    from: '    AND ${groupAllowance(g)} > 0)`;',
    to: '    AND ${groupAllowance(g)} >= 0)`;',
    tests: ['test/group-limiter.e2e-spec.ts'],
    why: 'SQLite group walk that counts a group at its limit as served: the groups after it wait behind it',
  },
  {
    id: 'group-limiter-pg-no-bound',
    area: 'group limiter',
    file: 'lib/storage/postgres/sql/group-claim.sql.ts',
    from: 'AND (held.allowance IS NULL OR ranked.rn <= held.allowance)',
    to: 'AND (held.allowance IS NULL OR ranked.rn <= held.allowance + 1)',
    tests: ['test/group-limiter.e2e-spec.ts'],
    why: 'PostgreSQL claim that lets one more job of a group start than what is left of its window',
  },
  {
    id: 'group-limiter-pause-whole-queue',
    area: 'group limiter',
    file: 'lib/worker/retry-policy.ts',
    from: 'return error instanceof GroupRateLimitError;',
    to: 'return false;',
    tests: ['test/group-limiter.e2e-spec.ts'],
    why: 'a GroupRateLimitError that pauses the whole queue instead of its group',
  },
  // ---- throttle: a closed window while the job still waits
  {
    id: 'throttle-sqlite-holder-pending',
    area: 'throttle',
    file: 'lib/storage/sqlite/sql/keyed-enqueue.sql.ts',
    from: "AND (status IN ('pending', 'running') OR key_until > ?)",
    to: "AND (status = 'running' OR key_until > ?)",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'SQLite: a pending job past its throttle window is not seen as the key holder: the add throws JobKeyConflictError',
  },
  {
    id: 'throttle-pg-holder-pending',
    area: 'throttle',
    file: 'lib/storage/postgres/sql/keyed-enqueue.sql.ts',
    from: "AND (status IN ('pending', 'running') OR key_until > $3)",
    to: "AND (status = 'running' OR key_until > $3)",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'PostgreSQL: a pending job past its throttle window is not seen as the key holder: the add throws JobKeyConflictError',
  },
  // ---- debounce: a job that ran (waiting for its retry, or snoozed) is not replaced
  {
    id: 'debounce-sqlite-replaces-started',
    area: 'debounce',
    file: 'lib/storage/sqlite/sql/keyed-enqueue.sql.ts',
    from: "WHERE queue = ? AND debounce_key = ? AND status = 'pending' AND started_at IS NULL",
    to: "WHERE queue = ? AND debounce_key = ? AND status = 'pending'",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'SQLite debounce replaces a pending job that already ran (retry or snooze pending): its data is overwritten mid-life',
  },
  {
    id: 'debounce-pg-replaces-started',
    area: 'debounce',
    file: 'lib/storage/postgres/sql/keyed-enqueue.sql.ts',
    from: "WHERE queue = $1 AND debounce_key = $12 AND status = 'pending' AND started_at IS NULL",
    to: "WHERE queue = $1 AND debounce_key = $12 AND status = 'pending'",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'PostgreSQL debounce replaces a pending job that already ran (retry or snooze pending): its data is overwritten mid-life',
  },
  {
    id: 'debounce-sqlite-snooze-unstarts',
    area: 'debounce',
    file: 'lib/storage/sqlite/sql/snooze.sql.ts',
    from: "SET status = 'pending', attempts = attempts - 1, run_at = ?, snoozes = snoozes + 1,",
    to: "SET status = 'pending', attempts = attempts - 1, run_at = ?, started_at = NULL, snoozes = snoozes + 1,",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'SQLite snooze clears started_at: a snoozed debounced job looks unstarted and the next add replaces it',
  },
  // ---- dead letters: what the trigger copies
  {
    id: 'dead-letter-copy-group',
    area: 'dead letters',
    file: 'lib/storage/shared/dead-letter-copy.ts',
    from: "  'job_group',\n];",
    to: '];',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "the dead-letter trigger drops the failed job's group: a redriven job loses its group's fairness and bound",
  },
  {
    id: 'dead-letter-copy-timeout',
    area: 'dead letters',
    file: 'lib/storage/shared/dead-letter-copy.ts',
    from: "  'timeout_ms',\n",
    to: '',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "the dead-letter trigger drops the failed job's timeout: the dead letter runs without its run option",
  },
  // ---- redrive: dead letters that failed on the dead-letter queue's processor
  {
    id: 'redrive-sqlite-failed-letters',
    area: 'redrive',
    file: 'lib/storage/sqlite/sql/dead-letters.sql.ts',
    from: "WHERE queue = ? AND origin IS NOT NULL AND status IN ('pending', 'failed')",
    to: "WHERE queue = ? AND origin IS NOT NULL AND status = 'pending'",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'SQLite redrive skips the dead letters that failed on the dead-letter queue: they are stranded there',
  },
  {
    id: 'redrive-pg-failed-letters',
    area: 'redrive',
    file: 'lib/storage/postgres/sql/dead-letters.sql.ts',
    from: "WHERE queue = $2 AND origin IS NOT NULL AND status IN ('pending', 'failed')",
    to: "WHERE queue = $2 AND origin IS NOT NULL AND status = 'pending'",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'PostgreSQL redrive skips the dead letters that failed on the dead-letter queue: they are stranded there',
  },
  {
    id: 'redrive-sqlite-keeps-attempts',
    area: 'redrive',
    file: 'lib/storage/sqlite/sql/dead-letters.sql.ts',
    from: "status = 'pending', attempts = 0, run_at = ?,",
    to: "status = 'pending', run_at = ?,",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "SQLite redrive keeps a failed dead letter's spent attempts: the redriven job is not fresh and fails early",
  },
  // ---- snooze: the wake-up at the snooze's due time
  {
    id: 'snooze-no-wake',
    area: 'snooze',
    file: 'lib/worker/snooze-writer.ts',
    from: '    this.context.onRetryScheduled(runAt);\n    return null;',
    to: '    return null;',
    tests: ['test/snooze.e2e-spec.ts'],
    why: 'a snooze arms no wake-up for its due time: the job waits for the fallback poll (up to pollInterval late)',
  },
  // ---- explain: only a live lease is explained as one
  {
    id: 'explain-expired-lease-live',
    area: 'explain',
    file: 'lib/admin/explain-job.ts',
    from: '      lease > now\n',
    to: '      lease !== 0\n',
    tests: ['test/explain.e2e-spec.ts'],
    why: 'explain takes any recorded lease for a live one: a job whose owner vanished is said to run and be renewed',
  },
  {
    id: 'explain-sqlite-running-live',
    area: 'explain',
    file: 'lib/storage/sqlite/sql/explain.sql.ts',
    from: "WHERE r.status = 'running' AND r.lease_until > ? AND r.queue = j.queue",
    to: "WHERE r.status = 'running' AND r.lease_until < ? AND r.queue = j.queue",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'SQLite explain counts the expired leases as running, not the live ones (flipped comparison): a global bound is misexplained',
  },
  {
    id: 'explain-pg-group-live',
    area: 'explain',
    file: 'lib/storage/postgres/sql/explain.sql.ts',
    from: 'AND g.lease_until > $2) AS x_group_running_live',
    to: ') AS x_group_running_live',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL explain counts a group's expired leases: a job of that group is said to wait for its group's bound",
  },
  // ==== end of the tests/a block
  // ---- newest features, part 2
  {
    id: 'prometheus-quantile-rank',
    area: 'prometheus',
    file: 'lib/metrics/prometheus-exposition.ts',
    from: 'Math.ceil(q * sorted.length) - 1',
    to: 'Math.floor(q * sorted.length)',
    tests: ['test/prometheus.e2e-spec.ts'],
    why: 'nearest rank off by one: every quantile of an even sample reads the value above the right one',
  },
  {
    id: 'prometheus-quantile-text-sort',
    area: 'prometheus',
    file: 'lib/metrics/prometheus-exposition.ts',
    from: '.sort((a, b) => a - b)',
    to: '.sort()',
    tests: ['test/prometheus.e2e-spec.ts'],
    why: "the sample sorted as text (Array.prototype.sort's default): 12 s ranks below 2 s and the high quantiles are wrong",
  },
  {
    id: 'prometheus-sqlite-wait-from-finish',
    area: 'prometheus',
    file: 'lib/storage/sqlite/sql/inspect.sql.ts',
    from: 'started_at - run_at AS wait_ms',
    to: 'finished_at - run_at AS wait_ms',
    tests: ['test/prometheus.e2e-spec.ts'],
    why: 'SQLite: the wait time measured to the finish, not the start: every wait quantile includes the run',
  },
  {
    id: 'prometheus-pg-wait-from-finish',
    area: 'prometheus',
    file: 'lib/storage/postgres/sql/inspect.sql.ts',
    from: 'started_at - run_at AS wait_ms',
    to: 'finished_at - run_at AS wait_ms',
    tests: ['test/prometheus.e2e-spec.ts'],
    why: 'PostgreSQL: the wait time measured to the finish, not the start: every wait quantile includes the run',
  },
  {
    id: 'cli-exit-key-conflict',
    area: 'cli exit codes',
    file: 'lib/cli/cli-errors.ts',
    from: '[JobKeyConflictError, EXIT_CODES.refused],',
    to: '[JobKeyConflictError, EXIT_CODES.notFound],',
    tests: ['test/cli-exit-codes.spec.ts'],
    why: 'a key held by another job (retry of a cancelled debounced job) exits 4 as if the job did not exist, not 5',
  },
  {
    id: 'cli-exit-storage-unmapped',
    area: 'cli exit codes',
    file: 'lib/cli/cli-errors.ts',
    from: '  [StorageError, EXIT_CODES.database],\n',
    to: '',
    tests: ['test/cli-exit-codes.spec.ts'],
    why: 'StorageError left out of the lookup: a database that fails under a command exits 1 (a bug) instead of 3',
  },
  {
    id: 'cli-exit-invalid-argument',
    area: 'cli exit codes',
    file: 'lib/cli/cli-errors.ts',
    from: '[InvalidArgumentError, EXIT_CODES.usage],',
    to: '[InvalidArgumentError, EXIT_CODES.refused],',
    tests: ['test/cli-exit-codes.spec.ts', 'test/cli.e2e-spec.ts'],
    why: 'an argument QueueAdmin refuses (clean --status running) exits 5, refused by the state of things, instead of 2',
  },
  {
    id: 'cli-exit-schema-outdated',
    area: 'cli exit codes',
    file: 'lib/cli/cli-errors.ts',
    from: '[SchemaOutdatedError, EXIT_CODES.database],',
    to: '[SchemaOutdatedError, EXIT_CODES.refused],',
    tests: ['test/cli-exit-codes.spec.ts'],
    why: 'a database at an older schema exits 5 instead of 3 (the database cannot be used)',
  },
  {
    id: 'promote-sequence-max-id',
    area: 'promote',
    file: 'lib/storage/sqlite/sql/promote-source.sql.ts',
    from: 'sequence: Math.max(Number(sequence?.seq ?? 0), Number(range.max))',
    to: 'sequence: Number(range.max)',
    tests: ['test/promote.e2e-spec.ts'],
    why: "promote moves PostgreSQL's sequence to max(id), not sqlite_sequence: the id of a removed newest job is given again",
  },
  {
    id: 'promote-setval-not-called',
    area: 'promote',
    file: 'lib/storage/postgres/sql/promote-target.sql.ts',
    from: '$2::bigint, true)',
    to: '$2::bigint, false)',
    tests: ['test/promote.e2e-spec.ts'],
    why: "setval with is_called false: PostgreSQL's next id is the highest id SQLite gave, not the one after it",
  },
  {
    id: 'telemetry-tracestate-not-stored',
    area: 'telemetry',
    file: 'lib/telemetry/queue-telemetry.ts',
    from: 'traceState: spanContext.traceState?.serialize(),',
    to: 'traceState: undefined,',
    tests: ['test/telemetry.e2e-spec.ts'],
    why: "the PRODUCER span's tracestate is not stored with the job: the worker's spans lose the caller's vendor entries",
  },
  {
    id: 'telemetry-tracestate-not-restored',
    area: 'telemetry',
    file: 'lib/telemetry/queue-telemetry.ts',
    from: "if (traceState && typeof api.createTraceState === 'function')",
    to: "if (!traceState && typeof api.createTraceState === 'function')",
    tests: ['test/telemetry.e2e-spec.ts'],
    why: 'the stored tracestate is not put back on the remote parent (flipped test): CONSUMER spans carry none',
  },
  {
    id: 'dashboard-sec-fetch-same-site',
    area: 'dashboard',
    file: 'lib/dashboard/same-origin.guard.ts',
    from: "if (site !== undefined && site !== 'same-origin')",
    to: "if (site !== undefined && site !== 'same-origin' && site !== 'same-site')",
    tests: ['test/dashboard-api.e2e-spec.ts'],
    why: 'same-site taken for same-origin: a page of a sibling subdomain (or another port) may act without an Origin header',
  },
  {
    id: 'dashboard-sec-fetch-cross-site-only',
    area: 'dashboard',
    file: 'lib/dashboard/same-origin.guard.ts',
    from: "if (site !== undefined && site !== 'same-origin')",
    to: "if (site === 'cross-site')",
    tests: ['test/dashboard-api.e2e-spec.ts'],
    why: 'only cross-site refused: same-site (and none, a typed URL) requests act when they send no Origin',
  },
  {
    id: 'retention-sqlite-count-by-id',
    area: 'retention',
    file: 'lib/storage/sqlite/sql/retention.sql.ts',
    from: 'ORDER BY finished_at DESC, id DESC LIMIT ?)',
    to: 'ORDER BY id DESC LIMIT ?)',
    tests: ['test/retention.e2e-spec.ts'],
    why: 'SQLite retention by count keeps the highest ids, not the newest finished: a job added first and finished last is removed',
  },
  {
    id: 'retention-pg-count-by-id',
    area: 'retention',
    file: 'lib/storage/postgres/sql/retention.sql.ts',
    from: 'row_number() OVER (ORDER BY finished_at DESC, id DESC)',
    to: 'row_number() OVER (ORDER BY id DESC)',
    tests: ['test/retention.e2e-spec.ts'],
    why: 'PostgreSQL retention by count keeps the highest ids, not the newest finished: a job added first and finished last is removed',
  },
  {
    id: 'schedule-run-now-time-key',
    area: 'schedule run now',
    file: 'lib/admin/schedule-control.ts',
    from: 'scheduleRunKey(schedule.name, now), job, now)',
    to: '`${schedule.name}@${now}`, job, now)',
    tests: ['test/operator-admin.e2e-spec.ts'],
    why: "a run made by hand keyed as the occurrence of its own millisecond: made in the millisecond of the schedule's next occurrence, that occurrence is dropped as its duplicate",
  },
  {
    id: 'schedule-run-key-no-random',
    area: 'schedule run now',
    file: 'lib/scheduler/schedule-run-key.ts',
    from: "${Math.trunc(now)}${String(randomInt(1_000_000)).padStart(6, '0')}",
    to: '${Math.trunc(now)}',
    tests: ['test/operator-admin.e2e-spec.ts'],
    why: "the run key without its random part is an occurrence's key (13 digits): a run made by hand in the millisecond of the next occurrence drops it",
  },
  {
    id: 'schedule-run-key-separator',
    area: 'schedule run now',
    file: 'lib/scheduler/schedule-run-key.ts',
    from: "${Math.trunc(now)}${String(randomInt(1_000_000)).padStart(6, '0')}",
    to: "${Math.trunc(now)}-${String(randomInt(1_000_000)).padStart(6, '0')}",
    tests: ['test/operator-admin.e2e-spec.ts'],
    why: 'a run key with a separator is no run of the schedule (not digits only): getLastScheduleRun skips the runs made by hand',
  },
  // ---- transactional completion: the completion is the caller's transaction's, and only a commit completes the job
  {
    id: 'complete-in-outside-transaction-postgres',
    area: 'transactional completion',
    file: 'lib/storage/postgres/roles/caller-transaction.storage.ts',
    from: '{ runner: new TransactionStatements(runner), tables: this.db.tables }',
    to: 'this.db',
    tests: ['test/complete-in.e2e-spec.ts', 'test/complete-in-crash.e2e-spec.ts'],
    why: "the completion written on the queue's own connection, beside the caller's transaction: it stays when that rolls back, and a kill between the two leaves a completed job without its effect",
  },
  {
    id: 'complete-in-outside-transaction-sqlite',
    area: 'transactional completion',
    file: 'lib/storage/sqlite/roles/caller-transaction.storage.ts',
    from: '    const completed = await completeJobs(new TransactionStatements(runner), [completion], workerId, now);',
    to: '    const completed = new Set([completion.ref.id]);\n    void TransactionStatements;\n    CommitWatch.of(dataSourceOfManager(manager)).afterCommit(runner, () => void completeJobs(this.db.background, [completion], workerId, now));',
    tests: ['test/complete-in.e2e-spec.ts', 'test/complete-in-crash.e2e-spec.ts'],
    why: 'the completion written after the commit, as a worker would after its handler: a kill between the commit and that write runs the job again, and its effect lands twice',
  },
  {
    id: 'complete-in-rollback-completes',
    area: 'transactional completion',
    file: 'lib/worker/transactional-completion.ts',
    from: "        return { kind: 'failed', error: threw ? thrown : new CompletionNotCommittedError(this.record.id, 'rolled-back') };",
    to: "        return threw ? { kind: 'failed', error: thrown } : null;",
    tests: ['test/complete-in.e2e-spec.ts'],
    why: "a completion rolled back with its transaction lets the handler's return complete the job: completed without its effect",
  },
  // ---- job dependencies (dependsOn): the statements of schema step 17, shared by both backends
  {
    id: 'dependency-release-while-pending',
    area: 'dependencies',
    file: 'lib/storage/shared/dependency-step.ts',
    from: "WHERE o.job_id = d.job_id AND x.status IN ('pending', 'running')",
    to: "WHERE o.job_id = d.job_id AND x.status = 'running'",
    tests: ['test/dependencies.e2e-spec.ts', 'test/dependencies-crash.e2e-spec.ts'],
    why: 'the end of a dependency releases a dependent whose other dependency is still pending: it runs early',
  },
  {
    id: 'dependency-completed-fails-dependents',
    area: 'dependencies',
    file: 'lib/storage/shared/dependency-step.ts',
    from: "WHERE d.depends_on = ${depId} AND ${depStatus} <> 'completed' AND",
    to: 'WHERE d.depends_on = ${depId} AND',
    tests: ['test/dependencies.e2e-spec.ts'],
    why: "a dependency that completed fails its 'fail' dependents as if it had failed",
  },
  {
    id: 'dependency-failure-no-cascade',
    area: 'dependencies',
    file: 'lib/storage/shared/dependency-step.ts',
    from: "      WHERE j.status = 'pending' AND j.run_at >= ${W} AND j.on_dependency_failure = 'fail')`;",
    to: '      WHERE false)`;',
    tests: ['test/dependencies.e2e-spec.ts'],
    why: "a failed dependency fails its 'fail' dependents but not theirs: those wait for ever",
  },
  {
    id: 'dependency-add-ignores-failed',
    area: 'dependencies',
    file: 'lib/storage/shared/dependency-step.ts',
    from: "WHERE ${T}.id = ${job}.id AND ${T}.on_dependency_failure = 'fail'`;",
    to: "WHERE ${T}.id = ${job}.id AND ${T}.on_dependency_failure = 'never'`;",
    tests: ['test/dependencies.e2e-spec.ts'],
    why: "a dependent added after its dependency failed runs anyway, though its policy is 'fail'",
  },
  {
    id: 'dependency-add-never-waits',
    area: 'dependencies',
    file: 'lib/storage/shared/dependency-step.ts',
    from: 'UPDATE ${T} SET run_at = run_at + ${W} WHERE id = ${job}.id',
    to: 'UPDATE ${T} SET run_at = run_at WHERE id = ${job}.id',
    tests: ['test/dependencies.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'a dependent added while its dependencies are live does not wait: it runs at once',
  },
  {
    id: 'dependency-sqlite-removal-ignored',
    area: 'dependencies',
    file: 'lib/storage/sqlite/migrations/017-dependencies.migration.ts',
    from: "WHEN OLD.dependents IS NOT NULL AND OLD.status IN ('pending', 'running')",
    to: "WHEN OLD.dependents IS NOT NULL AND OLD.status = 'running'",
    tests: ['test/dependencies.e2e-spec.ts'],
    why: 'SQLite: a pending dependency removed leaves its dependents waiting for ever',
  },
  {
    id: 'dependency-pg-end-no-lock',
    area: 'dependencies',
    file: 'lib/storage/postgres/migrations/017-dependencies.migration.ts',
    from: '          ORDER BY id FOR UPDATE;\n        ${release};',
    to: '          ORDER BY id;\n        ${release};',
    tests: ['test/dependencies-postgres-race.e2e-spec.ts'],
    why: 'PostgreSQL: the end of a dependency reads the dependents without locking them: two ends at once each see the other live, and the dependent waits for ever',
  },
  {
    id: 'dependency-pg-removal-ignored',
    area: 'dependencies',
    file: 'lib/storage/postgres/migrations/017-dependencies.migration.ts',
    from: "WHEN (OLD.dependents IS NOT NULL AND OLD.status IN ('pending', 'running'))",
    to: "WHEN (OLD.dependents IS NOT NULL AND OLD.status = 'running')",
    tests: ['test/dependencies.e2e-spec.ts'],
    why: 'PostgreSQL: a pending dependency removed leaves its dependents waiting for ever',
  },
  // ---- batch handlers: the collector behind the one call site, and its shutdown hand-back
  {
    id: 'batch-error-item-is-result',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: 'if (item instanceof Error) settle(entry, false, item);',
    to: 'if (item instanceof TypeError) settle(entry, false, item);',
    tests: ['test/batch-handlers.e2e-spec.ts'],
    why: "an item that is a plain Error completes its job (stored as the error's JSON) instead of failing it",
  },
  {
    id: 'batch-abort-not-heard',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: 'if (controller) controller.onAbort(entry);',
    to: 'if (controller) void entry;',
    tests: ['test/batch-handlers.e2e-spec.ts', 'test/batch-collector.spec.ts'],
    why: 'a job cancelled while its batch waits to fill is still passed to process(jobs)',
  },
  {
    id: 'batch-short-array-accepted',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: 'if (length !== entries.length) {',
    to: 'if (length > entries.length) {',
    tests: ['test/batch-handlers.e2e-spec.ts'],
    why: 'a returned array shorter than jobs completes the jobs past its end with no result',
  },
  {
    id: 'batch-pending-not-handed-back',
    area: 'batch',
    file: 'lib/worker/queue-worker.ts',
    from: '.concat(this.takeBatchPending(group));',
    to: '.concat([]);',
    tests: ['test/batch-handlers.e2e-spec.ts'],
    why: 'at shutdown a partial batch is called (within shutdownTimeout) instead of handed back unstarted',
  },
  {
    id: 'batch-pending-called-in-pause',
    area: 'batch',
    file: 'lib/worker/queue-worker.ts',
    from: '.concat(this.takeBatchPending(group));',
    to: '.concat(this.stopping ? this.takeBatchPending(group) : []);',
    tests: ['test/batch-handlers-outcomes.e2e-spec.ts'],
    why: "a RateLimitError's pause leaves a partial batch waiting to fill: it is called during the pause, to hit the limit again",
  },
  {
    id: 'batch-throw-wrapped',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: '    } catch (error) {\n      for (const entry of entries) settle(entry, false, error);',
    to: '    } catch (error) {\n      for (const entry of entries) settle(entry, false, new Error(String(error)));',
    tests: ['test/batch-handlers-outcomes.e2e-spec.ts'],
    why: "the call's throw reaches each job as a plain Error: a RateLimitError or SnoozeError thrown by a batch spends and fails every job",
  },
  {
    id: 'batch-error-item-wrapped',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: 'if (item instanceof Error) settle(entry, false, item);',
    to: 'if (item instanceof Error) settle(entry, false, new Error(item.message));',
    tests: ['test/batch-handlers-outcomes.e2e-spec.ts'],
    why: 'an item that is a RateLimitError or SnoozeError fails its job (an attempt spent) instead of pausing or snoozing it',
  },
  {
    id: 'complete-in-rollback-item-wins',
    area: 'batch',
    file: 'lib/worker/transactional-completion.ts',
    from: "if (this.state === 'pending') this.state = 'rolled-back';",
    to: "if (this.state === 'pending') this.state = 'none';",
    tests: ['test/batch-complete-in.e2e-spec.ts'],
    why: 'a rolled-back job.completeIn in a batch leaves the job to its item: it completes without its effect',
  },
  {
    id: 'batch-concurrency-default-one',
    area: 'batch',
    file: 'lib/discovery/processor.explorer.ts',
    from: 'options.concurrency ?? options.batch?.size ?? PROCESSOR_DEFAULTS.concurrency',
    to: 'options.concurrency ?? PROCESSOR_DEFAULTS.concurrency',
    tests: ['test/batch-handlers.e2e-spec.ts', 'test/batch-handlers-crash.e2e-spec.ts'],
    why: 'a batch processor without concurrency runs one job at a time: its batches hold one job',
  },
  // ---- validated payloads: a class-validator DTO class as a queue's schema
  {
    id: 'dto-handler-gets-plain',
    area: 'validated payloads',
    file: 'lib/utils/dto-schema.util.ts',
    from: 'return dtoClass === undefined ? data : loadPeers()!.transformer.plainToInstance(dtoClass, data);',
    to: 'return data;',
    tests: ['test/dto-payloads.e2e-spec.ts'],
    why: 'the handler of a DTO queue gets the stored plain object instead of an instance: its methods and Dates are gone',
  },
  {
    id: 'dto-array-index-path',
    area: 'validated payloads',
    file: 'lib/utils/dto-schema.util.ts',
    from: "typeof property === 'string' && /^\\d+$/.test(property) ? Number(property) : property;",
    to: 'property;',
    tests: ['test/dto-payloads.e2e-spec.ts'],
    why: 'an issue inside an array of a DTO is named data.lines["1"].quantity instead of data.lines[1].quantity',
  },
  // ---- dependency graphs: jobs that depend on each other, added together
  {
    id: 'graph-sqlite-ref-id',
    area: 'dependencies',
    file: 'lib/storage/sqlite/sql/graph.sql.ts',
    from: 'CASE WHEN d.value < 0 THEN base.id - d.value ELSE d.value END',
    to: 'CASE WHEN d.value < 0 THEN base.id - d.value - 1 ELSE d.value END',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'SQLite: a job of a graph waits for the job before the one it names (off by one in the id of a ref)',
  },
  {
    id: 'graph-pg-ref-id',
    area: 'dependencies',
    file: 'lib/storage/postgres/sql/graph.sql.ts',
    from: '(SELECT m.id FROM node AS m WHERE m.ord = -d::bigint)',
    to: '(SELECT m.id FROM node AS m WHERE m.ord = 1 - d::bigint)',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'PostgreSQL: a job of a graph waits for the job after the one it names',
  },
  {
    id: 'graph-refs-input-order',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'refs: refs.map((ref) => positionOf.get(ref)!)',
    to: 'refs',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph given dependents first names its jobs by input position instead of write order: the wrong jobs are waited for',
  },
  // ---- delete on completion: a completion whose retention keeps nothing deletes the row, unless something reads it
  {
    id: 'delete-sqlite-ignores-waiters',
    area: 'retention',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: "AND NOT EXISTS (SELECT 1 FROM ${EVENT_READERS_TABLE} WHERE origin = '${FINISH_WAITERS_MARK}' AND seen_at >= ?)",
    to: "AND NOT EXISTS (SELECT 1 FROM ${EVENT_READERS_TABLE} WHERE origin = '${FINISH_WAITERS_MARK}' AND seen_at >= ? AND 0)",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: 'SQLite deletes a completed job while a process waits for jobs: its waitUntilFinished rejects with JobNotFoundError',
  },
  {
    id: 'delete-pg-ignores-waiters',
    area: 'retention',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: "AND NOT ${finishWaitersAt(tables, '$1')}",
    to: 'AND true',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: 'PostgreSQL deletes a completed job while a process waits for jobs: its waitUntilFinished rejects with JobNotFoundError',
  },
  {
    id: 'batch-hole-completes',
    area: 'batch handlers',
    file: 'lib/worker/batch-collector.ts',
    from: 'present = index in items;',
    to: 'present = true;',
    tests: ['test/batch-collector.spec.ts'],
    why: 'a hole in a batch array of the right length completes its job with no result: work the handler never gave is acknowledged',
  },
  {
    id: 'admin-pending-cancel-untold',
    area: 'waits',
    file: 'lib/admin/queue-control.ts',
    from: 'else await this.announceCancelled(storage, id);',
    to: '',
    tests: ['test/wait-removed.e2e-spec.ts'],
    why: 'cancelling a pending job emits no cancelled event, and a wait for it in this process ends only at its next poll',
  },
  {
    id: 'dashboard-poll-replaces-pressed-button',
    area: 'dashboard',
    file: 'lib/dashboard/browser/main.browser.ts',
    from: '  if (!pressed) return apply();',
    to: '  return apply();',
    tests: ['test/dashboard-operator.e2e-spec.ts'],
    why: 'a poll that answers while a button is held down replaces it, and the click is lost',
  },
  {
    id: 'wait-ignores-recent-completions',
    area: 'retention',
    file: 'lib/events/finish-watcher.ts',
    from: 'if (completed) this.settle([completed]);',
    to: 'if (completed && false) this.settle([completed]);',
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: 'a wait that begins just after this process completed and deleted its job (add, then wait) rejects with JobNotFoundError',
  },
  {
    id: 'recent-completions-ignore-landing',
    area: 'retention',
    file: 'lib/events/recent-completions.ts',
    from: 'if (!(await entry.landed)) return null;',
    to: 'await entry.landed;',
    tests: ['test/recent-completions.spec.ts'],
    why: 'a completion that did not land (the attempt was lost) is read as completed by a wait in its process',
  },
  {
    id: 'fence-pg-complete-delete-attempt',
    area: 'fencing',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: 'AND t.attempts = ($3::int[])[i] AND ($6::boolean[])[i]',
    to: 'AND ($6::boolean[])[i]',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL's deleting completion without the attempt fence: a stale attempt deletes the job's newer attempt",
  },
  {
    id: 'delete-sqlite-deletes-dependencies',
    area: 'retention',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: "AND +status = 'running' AND parent_id IS NULL AND dependents IS NULL",
    to: "AND +status = 'running' AND parent_id IS NULL",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: 'SQLite deletes a running dependency at its completion: the removal trigger fails its dependents instead of releasing them',
  },
  {
    id: 'delete-pg-deletes-flow-children',
    area: 'retention',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: "AND t.status = 'running' AND t.parent_id IS NULL AND t.dependents IS NULL",
    to: "AND t.status = 'running' AND t.dependents IS NULL",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: "PostgreSQL deletes a flow child at its completion: its parent never reads the child's result",
  },
  {
    id: 'delete-sqlite-open-key-window',
    area: 'retention',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'AND (key_until IS NULL OR key_until <= ?)',
    to: 'AND (key_until IS NULL OR key_until >= ?)',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'SQLite deletes a throttled job inside its keyTtl window: the key is free again before the window ends',
  },
  {
    id: 'delete-worker-ignores-queue-retention',
    area: 'retention',
    file: 'lib/worker/queue-worker.ts',
    from: 'return this.keepsNoCompleted || ((record.removeOn ?? 0) & REMOVE_ON_COMPLETE) !== 0;',
    to: 'return ((record.removeOn ?? 0) & REMOVE_ON_COMPLETE) !== 0;',
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: "a queue's removeOnComplete: true no longer deletes at completion (only the per-job option does)",
  },
  {
    id: 'delete-worker-inverted-job-bit',
    area: 'retention',
    file: 'lib/worker/queue-worker.ts',
    from: 'return this.keepsNoCompleted || ((record.removeOn ?? 0) & REMOVE_ON_COMPLETE) !== 0;',
    to: 'return this.keepsNoCompleted || ((record.removeOn ?? 0) & REMOVE_ON_COMPLETE) === 0;',
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: 'jobs added without removeOnComplete are deleted at completion, and those added with it are kept',
  },
  {
    id: 'delete-completion-never-landed',
    area: 'retention',
    file: 'lib/worker/queue-worker.ts',
    from: "landed?.(saved?.kind === 'complete');",
    to: 'landed?.(false);',
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: 'a completion that deleted its row is never told landed: a wait in the same process that looks after the delete gets JobNotFoundError',
  },
  {
    id: 'delete-retention-count-zero',
    area: 'retention',
    file: 'lib/housekeeping/retention-rule.ts',
    from: "(typeof option === 'object' && option.count === 0)",
    to: "(typeof option === 'object' && option.count === 1)",
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: 'a queue whose retention is { count: 0 } keeps marking completed rows for the keeper instead of deleting them',
  },
  {
    id: 'delete-complete-in-keeps-row',
    area: 'retention',
    file: 'lib/worker/attempt-runner.ts',
    from: 'remove: this.context.removesOnComplete?.(record),',
    to: 'remove: false,',
    tests: ['test/delete-on-complete.e2e-spec.ts'],
    why: 'job.completeIn of a job whose retention keeps nothing marks the row completed instead of deleting it',
  },
  {
    id: 'links-sqlite-removed-dropped',
    area: 'dependencies',
    file: 'lib/storage/sqlite/sql/dependencies.sql.ts',
    from: 'LEFT JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = ? ORDER BY d.depends_on LIMIT ?',
    to: 'JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = ? ORDER BY d.depends_on LIMIT ?',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'SQLite: the graph around a job leaves out a dependency that was removed (and counts it out of the total)',
  },
  // ---- claimed ahead: a job a process claimed ahead of a free slot is not running until a handler gets it
  {
    id: 'claimed-ahead-claim-writes-start',
    area: 'claimed-ahead',
    file: 'lib/storage/sqlite/sql/claim.sql.ts',
    from: 'lease_until = ${NOW_MS} + ?, started_at = NULL,',
    to: 'lease_until = ${NOW_MS} + ?, started_at = ${NOW_MS},',
    tests: ['test/claimed-ahead.e2e-spec.ts'],
    why: 'the SQLite claim writes its own time as the start: a job claimed ahead reads as started, and running',
  },
  {
    id: 'claimed-ahead-counted-running',
    area: 'claimed-ahead',
    file: 'lib/admin/job-inspection.ts',
    from: '  counts.running -= counts.claimed;\n',
    to: '',
    tests: ['test/claimed-ahead.e2e-spec.ts'],
    why: 'getCounts counts the jobs claimed ahead twice: in `claimed` and again in `running`',
  },
  {
    id: 'claimed-ahead-start-not-carried',
    area: 'claimed-ahead',
    file: 'lib/worker/outcome-writer.ts',
    from: 'if (this.starts.get(ref.id)?.ref.attempt === ref.attempt) this.starts.delete(ref.id);',
    to: '',
    tests: ['test/claimed-ahead.e2e-spec.ts'],
    why: "an outcome no longer carries its job's start: every job's start costs a statement of its own",
  },
  {
    id: 'outcome-saving-not-owned-announced',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: '    this.request.saved(owned ? this.outcome : null);\n',
    to: '    this.request.saved(this.outcome);\n',
    tests: ['test/outcome-writer.spec.ts'],
    why: 'an outcome of an attempt no longer ours is told as saved: the worker announces a completion that took no effect',
  },
  {
    id: 'outcome-saving-refused-dropped',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: '      this.failures = 0;\n      return this.requeue(this);\n',
    to: '      this.failures = 0;\n      return this.request.saved(null);\n',
    tests: ['test/outcome-writer.spec.ts'],
    why: 'an outcome the database refuses for good is dropped instead of failing the attempt: the job waits for its lease to expire',
  },
  {
    id: 'outcome-saving-no-doubling',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: 'const pause = Math.min(25 * 2 ** this.failures++, MAX_SAVE_RETRY_DELAY_MS);',
    to: 'const pause = Math.min(25 * 2 ** this.failures, MAX_SAVE_RETRY_DELAY_MS);',
    tests: ['test/outcome-writer.spec.ts'],
    why: 'a busy database is retried every 25 ms for ever instead of with a doubling pause',
  },
  {
    id: 'slot-wait-mean-only',
    area: 'claimed-ahead',
    file: 'lib/poller/slot-wait-estimate.ts',
    from: 'return this.mean + 4 * this.deviation;',
    to: 'return this.mean;',
    tests: ['test/slot-wait-estimate.spec.ts', 'test/shared-poller.spec.ts'],
    why: 'the lookahead plans for the usual claim wait only, and slots idle through every wait that runs long',
  },
  {
    id: 'lookahead-capped-at-concurrency',
    area: 'claimed-ahead',
    file: 'lib/worker/worker-slots.ts',
    from: 'Math.min(2 * this.concurrency, Math.floor(jobs))',
    to: 'Math.min(this.concurrency, Math.floor(jobs))',
    tests: ['test/worker-slots.spec.ts', 'test/queue-worker.spec.ts'],
    why: "'auto' claims at most one job ahead per slot, which left a slot without its next job at a fifth of its frees",
  },
  {
    id: 'outcome-saved-attempt-never-ends',
    area: 'outcome path',
    file: 'lib/worker/queue-worker.ts',
    from: '      } finally {\n        this.end(attempt);\n      }',
    to: '      } finally {\n        void attempt;\n      }',
    tests: ['test/queue-worker.spec.ts'],
    why: 'an attempt whose outcome was saved never ends: its slot is never released and shutdown waits for ever',
  },
  {
    id: 'limits-sqlite-window-open',
    area: 'limiter bounds',
    file: 'lib/storage/sqlite/sql/limits.sql.ts',
    from: 'CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max AND window_start + rate_duration > ? THEN window_start + rate_duration\n    ELSE 0 END) AS until\n  FROM ${Q} WHERE queue = ?`',
    to: 'CASE WHEN rate_max IS NOT NULL AND window_count > rate_max AND window_start + rate_duration > ? THEN window_start + rate_duration\n    ELSE 0 END) AS until\n  FROM ${Q} WHERE queue = ?`',
    tests: ['test/queue-limits-info.e2e-spec.ts'],
    why: 'SQLite: getQueueLimits (and the dashboard) says a queue whose window is used up can be claimed now',
  },
  {
    id: 'group-pause-hides-ungrouped',
    area: 'group limiter',
    file: 'lib/storage/sqlite/sql/group-claim.sql.ts',
    from: 'LIMIT CASE WHEN ? OR EXISTS (SELECT 1 FROM ${G} WHERE queue = ? AND limited_until > ?) THEN ? ELSE 0 END',
    to: 'LIMIT CASE WHEN ? OR EXISTS (SELECT 1 FROM ${G} WHERE queue = ? AND limited_until < ?) THEN ? ELSE 0 END',
    tests: ['test/group-limiter.e2e-spec.ts'],
    why: 'SQLite: while groups are paused by GroupRateLimitError and fill the head of the queue, a job without a group waits for their pause',
  },
  // ---- this round's trial of the newest features: graphs, limits and links on the admin surface, claimed ahead
  {
    id: 'graph-self-ref-allowed',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: "if (position === index) throw invalid(field, 'names the job itself');",
    to: '',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job naming itself is refused as a cycle (DependencyCycleError) instead of a malformed option naming the field',
  },
  {
    id: 'graph-repeated-ref-allowed',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'if (refs.has(position)) throw invalid(field, `repeats ref ${JSON.stringify(ref)}`);',
    to: '',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job naming the same ref twice is accepted instead of refused',
  },
  {
    id: 'graph-continue-policy-dropped',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'record.onDependencyFailure = policy;',
    to: "record.onDependencyFailure = 'fail';",
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: "a graph job with onDependencyFailure 'continue' is failed by its failed dependency as if its policy were 'fail'",
  },
  {
    id: 'graph-key-accepted',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: "const REFUSED_OPTIONS = ['key', 'keyTtl', 'debounce', 'manager'] as const;",
    to: "const REFUSED_OPTIONS = ['keyTtl', 'debounce', 'manager'] as const;",
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job with a key is accepted: a keyed add that returns another job breaks the refs of the graph',
  },
  {
    id: 'graph-cycle-with-tail',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'return path.slice(seenAt.get(at));',
    to: 'return path;',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'DependencyCycleError.cycle lists the jobs leading into the cycle too, not the cycle alone',
  },
  {
    id: 'links-unknown-job-not-null',
    area: 'dependencies',
    file: 'lib/admin/job-inspection.ts',
    from: 'if (links.dependencyCount + links.dependentCount === 0 && (await storage.getJob(id)) === null) return null;',
    to: '',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'getJobDependencies of an id no job has returns empty lists instead of null',
  },
  {
    id: 'limits-info-declared-global-dropped',
    area: 'limiter bounds',
    file: 'lib/admin/job-inspection.ts',
    from: 'globalConcurrency: processor?.settings.globalConcurrency ?? declared?.globalConcurrency ?? null,',
    to: 'globalConcurrency: processor?.settings.globalConcurrency ?? null,',
    tests: ['test/queue-limits-info.e2e-spec.ts'],
    why: 'getQueueLimits of a queue whose global concurrency is declared in the module (no processor here) says it has none',
  },
  {
    id: 'limits-info-group-duration-swapped',
    area: 'limiter bounds',
    file: 'lib/admin/job-inspection.ts',
    from: 'groupLimiter: rate(stored?.groupMax, stored?.groupDuration),',
    to: 'groupLimiter: rate(stored?.groupMax, stored?.duration),',
    tests: ['test/queue-limits-info.e2e-spec.ts'],
    why: "getQueueLimits reports a groupLimiter's window as the queue limiter's duration",
  },
  {
    id: 'limits-pg-window-open',
    area: 'limiter bounds',
    file: 'lib/storage/postgres/sql/limits.sql.ts',
    from: 'storedLimits: `SELECT rate_max, rate_duration, group_rate_max, group_rate_duration, GREATEST(limited_until,\n        CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max',
    to: 'storedLimits: `SELECT rate_max, rate_duration, group_rate_max, group_rate_duration, GREATEST(limited_until,\n        CASE WHEN rate_max IS NOT NULL AND window_count > rate_max',
    tests: ['test/queue-limits-info.e2e-spec.ts'],
    why: 'PostgreSQL: getQueueLimits (and the dashboard) says a queue whose window is just used up can be claimed now',
  },
  {
    id: 'limits-stored-past-pause-shown',
    area: 'limiter bounds',
    file: 'lib/storage/shared/stored-limits.ts',
    from: 'limitedUntil: until > now ? until : 0,',
    to: 'limitedUntil: until,',
    tests: ['test/queue-limits-info.e2e-spec.ts'],
    why: 'getQueueLimits shows a pause that already ended as the time the queue opens again',
  },
  {
    id: 'claimed-ahead-explained-running',
    area: 'claimed-ahead',
    file: 'lib/admin/explain-job.ts',
    from: 'if (job.startedAt === null && lease > now) {',
    to: 'if (job.startedAt === null && lease < now) {',
    tests: ['test/claimed-ahead.e2e-spec.ts', 'test/explain.e2e-spec.ts'],
    why: 'explain of a job claimed ahead says a handler runs it',
  },
  {
    id: 'run-batch-not-cleared',
    area: 'batch',
    file: 'lib/storage/sqlite/sql/run-history.sql.ts',
    from: "return `runs = ${cappedAppendSql('runs', String(MAX_RUN_RECORDS), run)}, run_batch = NULL`;",
    to: "return `runs = ${cappedAppendSql('runs', String(MAX_RUN_RECORDS), run)}`;",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/batch-run-history.e2e-spec.ts'],
    why: "SQLite: a run that ends keeps its batch size on the row: the job's next run shows the old batch",
  },
  {
    id: 'run-batch-operator-retry-kept',
    area: 'batch',
    file: 'lib/storage/postgres/sql/control.sql.ts',
    from: "finished_at = NULL, run_batch = NULL, ${RELEASE_COLUMNS}\n        WHERE t.status IN ('failed', 'cancelled')",
    to: "finished_at = NULL, ${RELEASE_COLUMNS}\n        WHERE t.status IN ('failed', 'cancelled')",
    tests: ['test/batch-run-history.e2e-spec.ts'],
    why: "PostgreSQL: an operator's retry of a job cancelled in a batch keeps the batch size: its next run shows it",
  },
  {
    id: 'run-batch-pg-completion-drops-size',
    area: 'batch',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: 'lease_until = NULL, run_batch = coalesce(($7::int[])[i], t.run_batch)',
    to: 'lease_until = NULL, run_batch = t.run_batch',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/batch-run-history.e2e-spec.ts'],
    why: 'PostgreSQL: the completion drops the batch size its job carries: a batch call that ends within its turn records no batch',
  },
  {
    id: 'run-batch-started-skips-size',
    area: 'batch',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'AND (${T}.started_at IS NULL OR (j.value ->> 3 IS NOT NULL AND ${T}.run_batch IS NOT j.value ->> 3))`;',
    to: 'AND ${T}.started_at IS NULL`;',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/batch-run-history.e2e-spec.ts'],
    why: 'SQLite: a job whose start was written while it waited in a partial batch never shows its size while its call runs',
  },
  {
    id: 'run-batch-retry-drops-size',
    area: 'batch',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'RETRY_SQL, [error, runAt, now, started, started, now, batch,',
    to: 'RETRY_SQL, [error, runAt, now, started, started, now, null,',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/batch-run-history.e2e-spec.ts'],
    why: 'SQLite: a retried item of a batch call that ended within its turn records no batch in its run',
  },
  {
    id: 'run-batch-sqlite-completion-drops-size',
    area: 'batch',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: '      batched = true;\n',
    to: '',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/batch-run-history.e2e-spec.ts'],
    why: 'SQLite: a round of completions with batch sizes takes the single-job statement: a completed batch run records no batch',
  },
  {
    id: 'run-batch-long-call-not-noted',
    area: 'batch',
    file: 'lib/worker/queue-worker.ts',
    from: '      ref.batch = jobs.length;\n      this.context.outcomes.started(ref, this.context.logger);',
    to: '      ref.batch = jobs.length;',
    tests: ['test/batch-run-history.e2e-spec.ts'],
    why: 'a job whose start was written before its batch call shows no size while the call runs (only once it ends)',
  },
  {
    id: 'run-batch-never-marked',
    area: 'batch',
    file: 'lib/worker/batch-collector.ts',
    from: 'this.onCall?.(jobs);',
    to: '',
    tests: ['test/batch-run-history.e2e-spec.ts'],
    why: 'the batch handler calls are not recorded: no run says it was part of a batch',
  },
  // ---- a second look at the thinner areas: snoozes, back-off, validated payloads, claimed-ahead starts
  {
    id: 'snooze-spends-attempt',
    area: 'snooze',
    file: 'lib/storage/sqlite/sql/snooze.sql.ts',
    from: "SET status = 'pending', attempts = attempts - 1, run_at = ?, snoozes = snoozes + 1,",
    to: "SET status = 'pending', attempts = attempts, run_at = ?, snoozes = snoozes + 1,",
    tests: ['test/snooze.e2e-spec.ts'],
    why: 'SQLite: a snooze spends an attempt: a job snoozed maxAttempts times fails without ever failing',
  },
  {
    id: 'snooze-pg-bound-off-by-one',
    area: 'snooze',
    file: 'lib/storage/postgres/sql/snooze.sql.ts',
    from: "AND status = 'running' AND snoozes < $8",
    to: "AND status = 'running' AND snoozes <= $8",
    tests: ['test/snooze.e2e-spec.ts'],
    why: 'PostgreSQL: maxSnoozes allows one snooze more than it says',
  },
  {
    id: 'retry-backoff-jitter-full',
    area: 'retry back-off',
    file: 'lib/utils/backoff.util.ts',
    from: 'return Math.round(backoff.jitter ? capped / 2 + random() * (capped / 2) : capped);',
    to: 'return Math.round(backoff.jitter ? random() * capped : capped);',
    tests: ['test/backoff.spec.ts', 'test/retry-policy.spec.ts'],
    why: 'jittered back-off may wait 0 ms instead of at least half the delay',
  },
  {
    id: 'retry-backoff-cap-ignored',
    area: 'retry back-off',
    file: 'lib/utils/backoff.util.ts',
    from: 'Math.max(0, Math.min(base, cap, MAX_RETRY_DELAY));',
    to: 'Math.max(0, Math.min(base, MAX_RETRY_DELAY));',
    tests: ['test/backoff.spec.ts', 'test/retry-policy.spec.ts'],
    why: "a back-off's maxDelay is ignored: the tenth exponential retry waits 512 x delay",
  },
  {
    id: 'dto-unknown-values-allowed',
    area: 'validated payloads',
    file: 'lib/utils/dto-schema.util.ts',
    from: 'return { issues: [{ message: `must be an object to make a ${dtoClass.name}, got ${describeValue(value)}` }] };',
    to: 'return { value };',
    tests: ['test/dto-payloads.e2e-spec.ts'],
    why: 'an add to a DTO queue whose data is not an object (a string, an array) is stored unchecked',
  },
  {
    id: 'claimed-ahead-start-overwritten',
    area: 'claimed-ahead',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'SET started_at = coalesce(${T}.started_at, j.value ->> 2), run_batch',
    to: 'SET started_at = j.value ->> 2, run_batch',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/claimed-ahead.e2e-spec.ts'],
    why: 'SQLite: a later round of the same attempt (its batch call began) moves the start already written',
  },
  {
    id: 'options-array-accepted',
    area: 'hostile input',
    file: 'lib/producer/prepare-job.ts',
    from: 'if (!isOptionsObject(options)) throw invalid(',
    to: "if (typeof options !== 'object') throw invalid(",
    tests: ['test/prepare-job.spec.ts'],
    why: 'job options given as an empty array pass as no options',
  },
  {
    id: 'graph-dependencies-uncapped',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'if (links > MAX_GRAPH_DEPENDENCIES) {',
    to: 'if (links > MAX_GRAPH_DEPENDENCIES * 1000) {',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph of 101,000 dependencies is written in one statement instead of refused',
  },
  {
    id: 'graph-schema-before-limit',
    area: 'validated payloads',
    file: 'lib/producer/check-payloads.ts',
    from: 'if (!Array.isArray(jobs) || jobs.length > MAX_GRAPH_JOBS) return null;',
    to: 'if (!Array.isArray(jobs)) return null;',
    tests: ['test/payload-schema.spec.ts'],
    why: "a graph over its job limit runs every job's data through the queue's schema before it is refused",
  },
  {
    id: 'batch-item-read-throws-unheard',
    area: 'batch handlers',
    file: 'lib/worker/batch-collector.ts',
    from: `  } catch (error) {
    if (entry) settle(entry, false, error);
  }
}

function isThenable`,
    to: `  } catch (error) {
    void error;
  }
}

function isThenable`,
    tests: ['test/batch-collector.spec.ts'],
    why: 'a batch item that throws when read (a revoked Proxy) leaves its job and the later ones running for ever',
  },
  {
    id: 'batch-array-read-throws-unheard',
    area: 'batch handlers',
    file: 'lib/worker/batch-collector.ts',
    from: `      this.settleFrom(entries, returned);
    } catch (error) {`,
    to: `      this.settleFrom(entries, returned);
    } catch (error) {
      if (entries.length > 0) throw error;`,
    tests: ['test/batch-handlers.e2e-spec.ts'],
    why: "a returned array whose length or item throws when read (a Proxy's trap) leaves the call's jobs running for ever",
  },
  {
    id: 'batch-refused-length-items-unheard',
    area: 'batch handlers',
    file: 'lib/worker/batch-collector.ts',
    from: 'for (let index = 0; index < Math.min(length, MAX_HEARD_ITEMS); index++) settleFromItem(undefined, returned, index);',
    to: 'void MAX_HEARD_ITEMS;',
    tests: ['test/batch-handlers.e2e-spec.ts'],
    why: 'the rejected promises of an array refused for its length reject unhandled, which ends a Node process',
  },
  {
    id: 'add-commit-before-reply-lost',
    area: 'transactional completion',
    file: 'lib/producer/add-writer.ts',
    from: '() => (onEnd ? onEnd(true) : (ended = true)),',
    to: '() => (onEnd ? onEnd(true) : undefined),',
    tests: ['test/transactional-enqueue.e2e-spec.ts'],
    why: "a transaction that commits before an add's reply (an add not awaited) is not heard: the committed jobs' events are held for ever",
  },
  {
    id: 'complete-in-commit-before-reply-lost',
    area: 'transactional completion',
    file: 'lib/worker/transactional-completion.ts',
    from: "if (this.state === 'writing') this.endedEarly = 'committed';",
    to: "if (this.state === 'writing') this.endedEarly = undefined;",
    tests: ['test/complete-in.e2e-spec.ts'],
    why: "a transaction that commits before job.completeIn's reply (a completeIn not awaited) is not heard: no completed event, a rejection, a false failure logged",
  },
  {
    id: 'depends-on-holes-skipped',
    area: 'dependencies',
    file: 'lib/producer/prepare-job.ts',
    from: `  for (let index = 0; index < dependsOn.length; index++) {
    const id: unknown = dependsOn[index];`,
    to: `  for (const [index, id] of Object.entries(dependsOn) as [string, unknown][]) {`,
    tests: ['test/dependencies.e2e-spec.ts'],
    why: 'a dependsOn of holes (new Array(3)) adds a job that waits for nothing',
  },
  // ---- 2026-12-07: the waits, delete-on-completion, graph and option validation, the admin surface, the dashboard's
  // guards, promote, batch items and explain (areas the list covered thinly or not at all)
  {
    id: 'wait-first-look-completed-only',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: '} else if (record.finishedAt !== null) {',
    to: "} else if (record.status === 'completed') {",
    tests: ['test/finish-watcher.spec.ts', 'test/wait-removed.e2e-spec.ts', 'test/finish-notify.e2e-spec.ts'],
    why: 'a wait for a job that already failed or was cancelled is not settled by its first look: it resolves at the next poll (up to pollInterval late)',
  },
  {
    id: 'wait-local-cancel-unheard',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: "const FINAL_EVENTS = new Set(['completed', 'failed', 'cancelled']);",
    to: "const FINAL_EVENTS = new Set(['completed', 'failed']);",
    tests: ['test/finish-watcher.spec.ts', 'test/wait-removed.e2e-spec.ts', 'test/finish-notify.e2e-spec.ts'],
    why: 'a job this process cancels does not wake its waiters: the wait resolves at the next poll (up to pollInterval late)',
  },
  {
    id: 'wait-heartbeat-not-awaited',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: '      await this.renewHeartbeat();\n      const record = await (await this.storage()).getJob(id);',
    to: '      void this.renewHeartbeat();\n      const record = await (await this.storage()).getJob(id);',
    tests: ['test/finish-watcher.spec.ts', 'test/delete-on-complete.e2e-spec.ts', 'test/wait-removed.e2e-spec.ts'],
    why: "the first look reads the job before the waiters' heartbeat is written: a job of a queue that keeps nothing, completed in between, is deleted and the wait rejects with JobNotFoundError",
  },
  {
    id: 'admin-remove-wait-not-told',
    area: 'waits',
    file: 'lib/admin/queue-control.ts',
    from: `    // A wait for it in this process rejects now, not at its next poll.
    this.context.runtime.finishWatcher.lookAgain([id]);`,
    to: '',
    tests: ['test/wait-removed.e2e-spec.ts'],
    why: 'a job this process removes rejects its waits only at their next poll, not at once',
  },
  {
    id: 'delete-pg-open-key-window',
    area: 'retention',
    file: 'lib/storage/postgres/sql/outcomes.sql.ts',
    from: 'AND t.dependents IS NULL AND (t.key_until IS NULL OR t.key_until <= $1)',
    to: 'AND t.dependents IS NULL',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: 'PostgreSQL deletes a throttled job inside its keyTtl window at its completion: the key is free again before the window ends',
  },
  {
    id: 'delete-sqlite-deletes-flow-children',
    area: 'retention',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: "AND +status = 'running' AND parent_id IS NULL AND dependents IS NULL",
    to: "AND +status = 'running' AND dependents IS NULL",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/delete-on-complete.e2e-spec.ts'],
    why: "SQLite deletes a flow child at its completion: its parent never reads the child's result",
  },
  {
    id: 'graph-ref-length-unbounded',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: "if (typeof ref !== 'string' || ref.length === 0 || ref.length > MAX_REF_LENGTH) {",
    to: "if (typeof ref !== 'string' || ref.length === 0) {",
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job whose ref is longer than 128 characters is accepted',
  },
  {
    id: 'graph-existing-repeat-accepted',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: '      if (existing.has(entry)) throw invalid(field, `repeats job ${entry}`);\n',
    to: '',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job naming the same existing job twice in dependsOn is accepted (silently deduplicated) instead of refused as add() refuses it',
  },
  {
    id: 'graph-empty-depends-on-accepted',
    area: 'dependencies',
    file: 'lib/producer/prepare-graph.ts',
    from: 'if (!Array.isArray(dependsOn) || dependsOn.length === 0 || dependsOn.length > MAX_DEPENDENCIES) {',
    to: 'if (!Array.isArray(dependsOn) || dependsOn.length > MAX_DEPENDENCIES) {',
    tests: ['test/dependency-graph.e2e-spec.ts'],
    why: 'a graph job with dependsOn: [] is accepted as a job that depends on nothing, where add() refuses it',
  },
  {
    id: 'options-key-length-unbounded',
    area: 'hostile input',
    file: 'lib/producer/prepare-job.ts',
    from: "if (!(typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH)) {",
    to: "if (!(typeof key === 'string' && key.length > 0)) {",
    tests: ['test/job-options.e2e-spec.ts', 'test/hostile-input.e2e-spec.ts'],
    why: 'a key longer than 1024 characters is accepted and stored',
  },
  {
    id: 'admin-sqlite-retry-all-cancelled',
    area: 'admin',
    file: 'lib/storage/sqlite/sql/control.sql.ts',
    from: "WHERE queue = ? AND status = 'failed' AND ${KEY_NOT_HELD}",
    to: "WHERE queue = ? AND status IN ('failed', 'cancelled') AND ${KEY_NOT_HELD}",
    tests: ['test/admin-control.e2e-spec.ts'],
    why: 'SQLite retryAll runs the cancelled jobs of the queue again too, not its failed ones only',
  },
  {
    id: 'admin-pg-clean-by-creation',
    area: 'admin',
    file: 'lib/storage/postgres/sql/retention.sql.ts',
    from: 'WHERE queue = $1 AND COALESCE(finished_at, created_at) < $2',
    to: 'WHERE queue = $1 AND created_at < $2',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/admin-control.e2e-spec.ts'],
    why: 'PostgreSQL clean ages finished jobs by their creation: clean({ olderThan }) removes a job that was added long ago but finished just now',
  },
  {
    id: 'admin-metrics-window-zero',
    area: 'admin',
    file: 'lib/admin/operations.ts',
    from: 'windowMinutes >= 1 && windowMinutes <= 1440',
    to: 'windowMinutes >= 0 && windowMinutes <= 1440',
    tests: ['test/ops-bad-input.e2e-spec.ts'],
    why: 'getMetrics({ windowMinutes: 0 }) is accepted and reads an empty window instead of being refused',
  },
  {
    id: 'dashboard-authorize-not-strict',
    area: 'dashboard',
    file: 'lib/dashboard/authorize-function.guard.ts',
    from: 'context)) === true,',
    to: 'context)) !== false,',
    tests: ['test/dashboard-api.e2e-spec.ts'],
    why: 'an authorize function that returns nothing (an async check that forgot its return) lets every request in',
  },
  {
    id: 'dashboard-origin-port-ignored',
    area: 'dashboard',
    file: 'lib/dashboard/same-origin.guard.ts',
    from: 'return host !== undefined && new URL(origin).host === host.toLowerCase();',
    to: "return host !== undefined && new URL(origin).hostname === host.toLowerCase().split(':')[0];",
    tests: ['test/dashboard-api.e2e-spec.ts'],
    why: "an Origin on another port of the dashboard's host (another app on the same machine) is taken for the dashboard's own",
  },
  {
    id: 'promote-chunk-boundary-skips',
    area: 'promote',
    file: 'lib/cli/promote/promote-queue-database.ts',
    from: 'after = batch[batch.length - 1].rowid;',
    to: 'after = batch[batch.length - 1].rowid + 1;',
    tests: ['test/promote.e2e-spec.ts'],
    why: 'promote skips the row after each chunk: a file of more rows than one chunk (5,000) is refused as a copy that differs',
  },
  {
    id: 'batch-resolved-error-item-completes',
    area: 'batch handlers',
    file: 'lib/worker/batch-collector.ts',
    from: '        (value) => settleFromValue(entry, value),',
    to: '        (value) => entry && settle(entry, true, value),',
    tests: ['test/batch-collector.spec.ts', 'test/batch-handlers.e2e-spec.ts'],
    why: 'an item that is a promise resolving to an Error (an async map that returns its caught errors) completes its job instead of failing it',
  },
  {
    id: 'explain-lapsed-announcement-live',
    area: 'explain',
    file: 'lib/admin/explain-job.ts',
    from: 'if (limits.processesHere || (processorUntil !== null && processorUntil > now)) return null;',
    to: 'if (limits.processesHere || processorUntil !== null) return null;',
    tests: ['test/explain.e2e-spec.ts'],
    why: "a queue whose processors' announcement lapsed is taken for processed: its jobs are explained as due, not no-processor",
  },
  {
    id: 'admin-groups-limit-unbounded',
    area: 'admin',
    file: 'lib/admin/job-inspection.ts',
    from: "if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {\n      throw new InvalidArgumentError('getGroups'",
    to: "if (!(Number.isSafeInteger(limit) && limit >= 1)) {\n      throw new InvalidArgumentError('getGroups'",
    tests: ['test/groups.e2e-spec.ts'],
    why: 'getGroups takes a limit past 1,000 (a million): one call reads and returns every group of a queue',
  },
  {
    id: 'cli-job-id-leading-zeros',
    area: 'cli exit codes',
    file: 'lib/cli/cli-arguments.ts',
    from: 'if (!/^[1-9]\\d{0,18}$/.test(id))',
    to: 'if (!/^0*[1-9]\\d{0,18}$/.test(id))',
    tests: ['test/cli-read-only.e2e-spec.ts'],
    why: 'a job id with leading zeros (job 007) is taken for job 7 instead of refused as a bad command line (exit 2)',
  },
  // ---- 2026-12-07, second round: the day's new code (cascade cancel's events, the PostgreSQL transaction check's
  // identity, CompletionNotCommittedError's message, the dashboard's long queue names and their URLs on Fastify)
  {
    id: 'cascade-cancel-pending-unannounced',
    area: 'cascade cancel',
    file: 'lib/admin/queue-control.ts',
    from: "      else this.context.runtime.events.emit({ type: 'cancelled', queue: job.queue, jobId: job.id, attempt: job.attempt });",
    to: '      else void job.attempt;',
    tests: ['test/flows.e2e-spec.ts'],
    why: 'a cascading cancel emits no cancelled event for the pending descendants it cancelled: listeners never hear of them',
  },
  {
    id: 'cascade-cancel-sqlite-running-only',
    area: 'cascade cancel',
    file: 'lib/storage/sqlite/sql/flows.sql.ts',
    from: '  return rows\n    .map((row) => ({',
    to: '  return rows\n    .filter((row) => row.locked_by !== null)\n    .map((row) => ({',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'SQLite cancelDescendants returns only the running descendants it cancelled (as it once did): the pending ones go unannounced',
  },
  {
    id: 'cascade-cancel-pg-running-only',
    area: 'cascade cancel',
    file: 'lib/storage/postgres/sql/flows.sql.ts',
    from: 'SELECT * FROM cancelled WHERE (SELECT count(*) FROM done) >= 0 ORDER BY id',
    to: 'SELECT * FROM cancelled WHERE locked_by IS NOT NULL AND (SELECT count(*) FROM done) >= 0 ORDER BY id',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'PostgreSQL cancelDescendants returns only the running descendants it cancelled: the pending ones go unannounced',
  },
  {
    id: 'cascade-cancel-sqlite-running-from-new-lease',
    area: 'cascade cancel',
    file: 'lib/storage/sqlite/sql/flows.sql.ts',
    from: '  RETURNING id, queue, attempts, locked_by`;',
    to: '  RETURNING id, queue, attempts, lease_until AS locked_by`;',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'SQLite tells a running descendant by its lease, which RETURNING reads after the update cleared it: every one is taken for pending, its owner is not told and a second cancelled event goes out',
  },
  {
    id: 'cascade-cancel-pg-running-from-new-lease',
    area: 'cascade cancel',
    file: 'lib/storage/postgres/sql/flows.sql.ts',
    from: '        RETURNING id, queue, attempts, locked_by',
    to: '        RETURNING id, queue, attempts, lease_until AS locked_by',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'PostgreSQL tells a running descendant by its lease, which RETURNING reads after the update cleared it: every one is taken for pending',
  },
  {
    id: 'pg-transaction-identity-failure-kept',
    area: 'transactional completion',
    file: 'lib/storage/postgres/postgres-transaction.ts',
    from: '        if (this.ownIdentity === asking) this.ownIdentity = undefined;',
    to: '        void asking;',
    tests: ['test/postgres-transactions.spec.ts'],
    why: "the queue connection's identity question that failed once (a dropped connection) is kept: every later transaction check of the process fails",
  },
  {
    id: 'completion-not-committed-rolled-back-unnamed',
    area: 'transactional completion',
    file: 'lib/errors/completion-not-committed.error.ts',
    from: "that rolled back (reason 'rolled-back'): the completion",
    to: 'that rolled back: the completion',
    tests: ['test/complete-in.e2e-spec.ts'],
    why: "CompletionNotCommittedError's message no longer names the reason 'rolled-back': job.error and the failed events cannot tell it from 'still-open'",
  },
  {
    id: 'completion-not-committed-still-open-unnamed',
    area: 'transactional completion',
    file: 'lib/errors/completion-not-committed.error.ts',
    from: "when its handler ended (reason 'still-open'): commit it",
    to: 'when its handler ended: commit it',
    tests: ['test/complete-in.e2e-spec.ts'],
    why: "CompletionNotCommittedError's message no longer names the reason 'still-open'",
  },
  {
    id: 'dashboard-long-queue-heading-unwrapped',
    area: 'dashboard',
    file: 'lib/dashboard/assets/dashboard-style.ts',
    from: 'h1 .queue-title { min-width: 0; overflow-wrap: anywhere; }',
    to: 'h1 .queue-title { }',
    tests: ['test/dashboard.e2e-spec.ts'],
    why: "the queue page's heading lost its rule: a 128-character name without a space keeps the heading's minimum width, past a phone's window",
  },
  {
    id: 'dashboard-long-queue-link-uncut',
    area: 'dashboard',
    file: 'lib/dashboard/assets/dashboard-style.ts',
    from: 'a.queue-name { display: inline-block; max-width: 20em; overflow: hidden;',
    to: 'a.queue-name { display: inline-block; overflow: hidden;',
    tests: ['test/dashboard.e2e-spec.ts'],
    why: "the overview's and Processes' queue links are not cut: a 128-character name widens its table past the page",
  },
  {
    id: 'dashboard-queue-name-in-path',
    area: 'dashboard',
    file: 'lib/dashboard/browser/server.browser.ts',
    from: "  return 'queue' + (action ? '/' + action : '') + '?' + new URLSearchParams(Object.assign({ queue: name }, query || {})).toString();",
    to: "  return 'queues/' + encodeURIComponent(name) + (action ? '/' + action : '') + '?' + new URLSearchParams(query || {}).toString();",
    tests: ['test/dashboard.e2e-spec.ts'],
    why: "the page sends a queue's name as a path segment again: on Fastify (maxParamLength 100) a queue of a longer name neither loads nor acts (414)",
  },
  {
    id: 'dashboard-schedule-names-in-path',
    area: 'dashboard',
    file: 'lib/dashboard/browser/server.browser.ts',
    from: "  return 'schedule/' + action + '?' + new URLSearchParams({ queue: queue, name: name }).toString();",
    to: "  return 'schedules/' + encodeURIComponent(queue) + '/' + encodeURIComponent(name) + '/' + action;",
    tests: ['test/dashboard.e2e-spec.ts'],
    why: "a schedule's action goes with its queue and name as path segments again: on Fastify one of a queue of a long name is refused (414)",
  },
  // ---- validated payloads, dead letters, throttle and debounce: a second round (mut3)
  {
    id: 'payload-handler-gets-stored',
    area: 'validated payloads',
    file: 'lib/worker/attempt-runner.ts',
    from: '(job as { data: unknown }).data = toHandlerData(schema, (result as { value: unknown }).value);',
    to: '(job as { data: unknown }).data = toHandlerData(schema, job.data);',
    tests: ['test/validated-payloads.e2e-spec.ts'],
    why: "the handler gets the stored JSON, not the schema's output of it: a coerced Date or a transform applied on read is lost",
  },
  {
    id: 'payload-path-identifier-unanchored',
    area: 'validated payloads',
    file: 'lib/utils/payload-schema.util.ts',
    from: "else if (typeof key === 'string' && /^[A-Za-z_$][\\w$]*$/.test(key)) path += `.${key}`;",
    to: "else if (typeof key === 'string' && /^[A-Za-z_$][\\w$]*/.test(key)) path += `.${key}`;",
    tests: ['test/payload-schema.spec.ts', 'test/validated-payloads.e2e-spec.ts'],
    why: 'an issue under a key with a space is named data.a b instead of data["a b"] (the identifier test lost its end anchor)',
  },
  {
    id: 'payload-empty-issues-accepted',
    area: 'validated payloads',
    file: 'lib/utils/payload-schema.util.ts',
    from: 'if (issues === undefined || issues === null) return undefined;',
    to: 'if (issues === undefined || issues === null || issues.length === 0) return undefined;',
    tests: ['test/payload-schema.spec.ts', 'test/validated-payloads.e2e-spec.ts'],
    why: 'a schema that answers { issues: [] } lets the data through (as undefined) instead of refusing it',
  },
  {
    id: 'payload-described-issues-zero-more',
    area: 'validated payloads',
    file: 'lib/utils/payload-schema.util.ts',
    from: 'if (issues.length > MAX_DESCRIBED_ISSUES) shown.push',
    to: 'if (issues.length >= MAX_DESCRIBED_ISSUES) shown.push',
    tests: ['test/payload-schema.spec.ts', 'test/validated-payloads.e2e-spec.ts'],
    why: "a stored job's error of exactly ten issues ends with 'and 0 more'",
  },
  {
    id: 'payload-mixed-async-unawaited',
    area: 'validated payloads',
    file: 'lib/producer/check-payloads.ts',
    from: 'checks.some((entry) => entry !== undefined && isPendingCheck(entry.check))',
    to: 'checks.every((entry) => entry !== undefined && isPendingCheck(entry.check))',
    tests: ['test/payload-schema.spec.ts', 'test/validated-payloads.e2e-spec.ts'],
    why: 'a flow across a queue with a synchronous schema and one with an asynchronous one stores the pending check, not its output',
  },
  {
    id: 'dead-letter-null-not-declared',
    area: 'dead letters',
    file: 'lib/runtime/processing-runtime.ts',
    from: 'deadLetter !== null || this.pool.all().some((worker) => worker.queue === queue && worker.settings.deadLetter === null),',
    to: 'deadLetter !== null,',
    tests: ['test/dead-letter.e2e-spec.ts'],
    why: 'a processor that says deadLetter: null does not clear the dead-letter queue an earlier deploy declared: its failures still move',
  },
  {
    id: 'dead-letter-origin-no-error',
    area: 'dead letters',
    file: 'lib/storage/shared/dead-letter-copy.ts',
    from: "'jobId', ${idAsText}, 'error', NEW.error)",
    to: "'jobId', ${idAsText})",
    tests: ['test/dead-letter.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: "a dead letter's origin loses the failed job's last error",
  },
  {
    id: 'dead-letter-sqlite-count-pending-only',
    area: 'dead letters',
    file: 'lib/storage/sqlite/sql/dead-letters.sql.ts',
    from: "origin IS NOT NULL AND status IN ('pending', 'failed')) AS count",
    to: "origin IS NOT NULL AND status = 'pending') AS count",
    tests: ['test/dead-letter.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite listDeadLetterQueues counts only pending dead letters: those that failed on the dead-letter processor, which redrive moves, are left out',
  },
  {
    id: 'throttle-window-from-epoch',
    area: 'throttle',
    file: 'lib/producer/prepare-job.ts',
    from: 'return { keyUntil: now + Math.round(keyTtl as number) };',
    to: 'return { keyUntil: Math.round(keyTtl as number) };',
    tests: ['test/throttle-debounce.e2e-spec.ts'],
    why: 'a throttle window ends keyTtl ms after 1970, not after the add: it is closed from the start',
  },
  {
    id: 'throttle-pg-window-own-end',
    area: 'throttle',
    file: 'lib/storage/postgres/sql/keyed-enqueue.sql.ts',
    from: 'held.key_until > $14::bigint)',
    to: 'held.key_until > $13::bigint)',
    tests: ['test/throttle-debounce.e2e-spec.ts'],
    why: "PostgreSQL: an open window is compared with the new job's window end, not now: an add inside the window of a finished job inserts",
  },
  {
    id: 'debounce-sqlite-release-unstarts',
    area: 'debounce',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: 'started_at = CASE WHEN debounce_key IS NULL THEN NULL ELSE coalesce(started_at, updated_at) END, updated_at = ?,',
    to: 'started_at = NULL, updated_at = ?,',
    tests: ['test/throttle-debounce.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: a debounced job handed back at shutdown looks unstarted: the next add replaces it, or the hand-back collides with the key',
  },
  {
    id: 'debounce-sqlite-replace-swaps-run-at',
    area: 'debounce',
    file: 'lib/storage/sqlite/sql/keyed-enqueue.sql.ts',
    from: 'SET data = ?, priority = ?, run_at = ?, max_attempts',
    to: 'SET data = ?, run_at = ?, priority = ?, max_attempts',
    tests: ['test/throttle-debounce.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: "SQLite: a debounce's replacement writes its priority into run_at and its run time into priority",
  },
  {
    id: 'debounce-sqlite-retry-started-blocked',
    area: 'debounce',
    file: 'lib/storage/sqlite/sql/control.sql.ts',
    from: '(debounce_key IS NULL OR started_at IS NOT NULL OR NOT EXISTS',
    to: '(debounce_key IS NULL OR NOT EXISTS',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'SQLite: a failed debounced job that ran is not retried while a newer one of its key waits, though it is out of the key index',
  },
  // ==== fifth round: unique key takeover, lease recovery, schedule CAS, telemetry, hostile input
  {
    id: 'key-sqlite-find-running-holder-unseen',
    area: 'unique key takeover',
    file: 'lib/storage/sqlite/sql/enqueue.sql.ts',
    from: "WHERE queue = ? AND status IN ('pending', 'running') AND unique_key IN (SELECT value FROM json_each(?))`;",
    to: "WHERE queue = ? AND status = 'pending' AND unique_key IN (SELECT value FROM json_each(?))`;",
    tests: ['test/unique-keys.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: an add whose key a running job holds does not find that holder: it retries the insert and throws JobKeyConflictError',
  },
  {
    id: 'key-sqlite-throttle-running-holder-unseen',
    area: 'unique key takeover',
    file: 'lib/storage/sqlite/sql/keyed-enqueue.sql.ts',
    from: "(status IN ('pending', 'running') OR key_until > ?)",
    to: "(status = 'pending' OR key_until > ?)",
    tests: ['test/throttle-debounce.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: a throttled add after its window closed, while the holder still runs, finds no holder and throws instead of returning it',
  },
  {
    id: 'key-pg-throttle-running-holder-unseen',
    area: 'unique key takeover',
    file: 'lib/storage/postgres/sql/keyed-enqueue.sql.ts',
    from: "(status IN ('pending', 'running') OR key_until > $3)",
    to: "(status = 'pending' OR key_until > $3)",
    tests: ['test/storage-contract.e2e-spec.ts', 'test/throttle-debounce.e2e-spec.ts'],
    why: 'PostgreSQL: a throttled add after its window closed, while the holder still runs, finds no holder and throws instead of returning it',
  },
  {
    id: 'key-takeover-one-round-more',
    area: 'unique key takeover',
    file: 'lib/storage/shared/pair-enqueued.ts',
    from: 'if (roundsLeft <= 0) {',
    to: 'if (roundsLeft < 0) {',
    tests: ['test/pair-enqueued.spec.ts', 'test/unique-keys.e2e-spec.ts'],
    why: 'an add whose key holder keeps finishing between insert and read makes a fourth insert where the bound (and its error) says three',
  },
  {
    id: 'recovery-sqlite-find-expired-skips-inverted',
    area: 'lease recovery',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: 'AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY +id',
    to: 'AND id IN (SELECT value FROM json_each(?)) ORDER BY +id',
    tests: ['test/lease-recovery-isolation.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: the one-by-one fallback lists only the skipped rows: when one row makes the statement fail, no other expired job is recovered',
  },
  {
    id: 'recovery-refused-never-forgotten',
    area: 'lease recovery',
    file: 'lib/poller/expired-lease-recovery.ts',
    from: '      this.refused.delete(id);\n',
    to: '',
    tests: ['test/lease-keeper.spec.ts', 'test/lease-recovery-isolation.e2e-spec.ts'],
    why: 'a job the database refused once stays out of the recovery statement for good, recovered alone at every pass, after it was taken back',
  },
  {
    id: 'recovery-sqlite-failed-no-finished-at',
    area: 'lease recovery',
    file: 'lib/storage/sqlite/sql/leases.sql.ts',
    from: 'finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,',
    to: 'finished_at = CASE WHEN attempts > max_attempts THEN ? ELSE NULL END,',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/crash-recovery-poison.e2e-spec.ts'],
    why: 'SQLite: a job failed by recovery on its last attempt has no finished_at: retention and clean by age never remove it',
  },
  {
    id: 'schedule-sqlite-occurrence-exists-ge',
    area: 'schedule CAS',
    file: 'lib/storage/sqlite/sql/schedules.sql.ts',
    from: 'WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = ? AND name = ? AND next_run_at = ?)',
    to: 'WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = ? AND name = ? AND next_run_at >= ?)',
    tests: ['test/schedules.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts'],
    why: 'SQLite: a writer holding a stale read inserts its occurrence again once the first job of it is gone',
  },
  {
    id: 'schedule-pg-insert-without-advance',
    area: 'schedule CAS',
    file: 'lib/storage/postgres/sql/schedules.sql.ts',
    from: 'WHERE EXISTS (SELECT 1 FROM advanced)',
    to: 'WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = $1 AND name = $11)',
    tests: ['test/schedules.e2e-spec.ts', 'test/storage-cas.e2e-spec.ts'],
    why: 'PostgreSQL: the occurrence is inserted whether or not this writer advanced the schedule: a stale read enqueues it again once its job is gone',
  },
  {
    id: 'schedule-options-change-unseen',
    area: 'schedule CAS',
    file: 'lib/scheduler/schedule-definition.ts',
    from: 'a.data === b.data && a.options === b.options',
    to: 'a.data === b.data',
    tests: ['test/schedules.e2e-spec.ts'],
    why: "a redeploy that changes only a schedule's jobOptions (priority, attempts, group) is taken for the same schedule and not stored",
  },
  {
    id: 'telemetry-bulk-send-message-id',
    area: 'telemetry',
    file: 'lib/telemetry/queue-telemetry.ts',
    from: 'if (ids.length > 0 && !options.link) span.setAttribute',
    to: 'if (ids.length > 0) span.setAttribute',
    tests: ['test/telemetry.e2e-spec.ts'],
    why: "a bulk add's one PRODUCER span names the first job's id as its message id, as if it sent that job alone",
  },
  {
    id: 'telemetry-bulk-of-one-no-count',
    area: 'telemetry',
    file: 'lib/telemetry/queue-telemetry.ts',
    from: 'if (count > 1 || options.link) attributes',
    to: 'if (count > 1) attributes',
    tests: ['test/telemetry.e2e-spec.ts'],
    why: 'a bulk add of one job has no messaging.batch.message_count though its CONSUMER span links to it as a batch',
  },
  {
    id: 'admin-cascade-not-boolean-accepted',
    area: 'hostile input',
    file: 'lib/admin/admin-arguments.ts',
    from: "options === null || (options.cascade !== undefined && typeof options.cascade !== 'boolean')) {",
    to: 'options === null) {',
    tests: ['test/ops-bad-input.e2e-spec.ts', 'test/hostile-input.e2e-spec.ts'],
    why: "cancel / remove take { cascade: 'yes' } (or 1) and act without cascading, where any other non-boolean option is refused",
  },
  {
    id: 'search-length-off-by-one',
    area: 'hostile input',
    file: 'lib/admin/search-text.ts',
    from: 'if (search.length > MAX_SEARCH_LENGTH) {',
    to: 'if (search.length >= MAX_SEARCH_LENGTH) {',
    tests: ['test/search.e2e-spec.ts'],
    why: 'a search of exactly 200 characters, the documented maximum, is refused',
  },
  // ---- producer writes: the add paths' defaults, the batch commit, the flow's checks
  {
    id: 'producer-processor-max-attempts-ignored',
    area: 'producer writes',
    file: 'lib/producer/queue-producer.service.ts',
    from: 'maxAttempts: this.runtime.getProcessor(queue)?.settings.maxAttempts ?? this.runtime.options.maxAttempts',
    to: 'maxAttempts: this.runtime.options.maxAttempts',
    tests: ['test/retry.e2e-spec.ts', 'test/core.e2e-spec.ts'],
    why: "an add takes the module's maxAttempts, not its queue's @Processor maxAttempts",
  },
  {
    id: 'batch-commit-one-writer-two-in-flight',
    area: 'producer writes',
    file: 'lib/producer/add-batch-commit.ts',
    from: 'if (state.inFlight >= this.maxInFlight) {',
    to: 'if (state.inFlight > this.maxInFlight) {',
    tests: ['test/add-batch-commit.spec.ts', 'test/group-commit.e2e-spec.ts'],
    why: 'where the database has one writer, a second insert of a queue goes while one is in flight: ids leave call order',
  },
  {
    id: 'single-add-manager-outside-transaction',
    area: 'producer writes',
    file: 'lib/producer/single-add.ts',
    from: 'if (manager) return storage.enqueueIn(manager, queue, [record], now)',
    to: 'if (manager) return storage.enqueue(queue, [record], now)',
    tests: ['test/transactional-enqueue.e2e-spec.ts'],
    why: "add() with options.manager writes outside the caller's transaction: a rollback keeps the job",
  },
  {
    id: 'flow-max-jobs-off-by-one',
    area: 'producer writes',
    file: 'lib/producer/prepare-flow.ts',
    from: 'if (nodes.length >= MAX_FLOW_JOBS) {',
    to: 'if (nodes.length > MAX_FLOW_JOBS) {',
    tests: ['test/prepare-flow.spec.ts', 'test/flows-deep.e2e-spec.ts'],
    why: 'a flow of MAX_FLOW_JOBS + 1 jobs is accepted',
  },
  {
    id: 'flow-child-remove-on-complete-deeper-only',
    area: 'producer writes',
    file: 'lib/producer/prepare-flow.ts',
    from: 'if (parentIndex >= 0 && options.removeOnComplete === true) {',
    to: 'if (parentIndex > 0 && options.removeOnComplete === true) {',
    tests: ['test/prepare-flow.spec.ts', 'test/flows.e2e-spec.ts'],
    why: 'removeOnComplete is refused on grandchildren only: a child of the root is deleted before the root reads its result',
  },
  // ---- scheduler: the tick and the occurrence's job
  {
    id: 'scheduler-missed-not-collapsed',
    area: 'scheduler',
    file: 'lib/scheduler/scheduler.ts',
    from: 'const nextRunAt = nextOccurrenceAfter(schedule, now);',
    to: 'const nextRunAt = nextOccurrenceAfter(schedule, schedule.nextRunAt);',
    tests: ['test/scheduler.spec.ts', 'test/schedules.e2e-spec.ts'],
    why: 'missed occurrences do not collapse: after downtime each tick enqueues one more of them',
  },
  {
    id: 'occurrence-timeout-dropped',
    area: 'scheduler',
    file: 'lib/scheduler/occurrence-job.ts',
    from: 'timeout: options.timeout ?? null,',
    to: 'timeout: null,',
    tests: ['test/schedules.e2e-spec.ts', 'test/scheduler.spec.ts'],
    why: "a schedule's jobOptions.timeout is not given to its occurrences",
  },
  // ---- retention keeper: when a mark falls due
  {
    id: 'retention-mark-due-pushed-later',
    area: 'retention keeper',
    file: 'lib/housekeeping/retention-keeper.ts',
    from: 'mark.dueAt = Math.min(mark.dueAt, now + age);',
    to: 'mark.dueAt = Math.max(mark.dueAt, now + age);',
    tests: ['test/retention-keeper.spec.ts', 'test/retention.e2e-spec.ts'],
    why: 'each finish pushes an age-bound mark later: under steady traffic the age bound is never applied',
  },
  // ---- metrics: the window's minutes
  {
    id: 'metrics-now-past-last-minute',
    area: 'metrics',
    file: 'lib/metrics/compute-metrics.ts',
    from: 'Math.min(windowMinutes - 1, Math.floor((timing.finishedAt - start) / MINUTE))',
    to: 'Math.min(windowMinutes, Math.floor((timing.finishedAt - start) / MINUTE))',
    tests: ['test/compute-metrics.spec.ts', 'test/health-metrics.e2e-spec.ts'],
    why: "a job finished at the window's end falls past its last minute: lost from the per-minute counts",
  },
  // ---- queue events: the filtered stream
  {
    id: 'queue-events-on-any-queue',
    area: 'queue events',
    file: 'lib/queue-events/queue-events.service.ts',
    from: '(event): event is QueueEventOf<TType> => event.type === type && (queue === undefined || event.queue === queue)',
    to: '(event): event is QueueEventOf<TType> => event.type === type',
    tests: ['test/events.e2e-spec.ts'],
    why: "QueueEvents.on(type, queue) gives that type's events of every queue",
  },
  // ---- poller: limit checks and the claim operator
  {
    id: 'limit-watch-full-queue-asked',
    area: 'poller',
    file: 'lib/poller/limit-watch.ts',
    from: 'if (!limited || got >= request.limit || this.drained.has(request.queue)) continue;',
    to: 'if (!limited || got > request.limit || this.drained.has(request.queue)) continue;',
    tests: ['test/limit-watch.spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: 'a rate-limited queue that got every job it asked for is read about anyway: one more statement per round',
  },
  {
    id: 'exhaust-completes-with-run-in-flight',
    area: 'poller',
    file: 'lib/poller/exhaust-map-with-trailing.operator.ts',
    from: 'if (!running) subscriber.complete();',
    to: 'subscriber.complete();',
    tests: ['test/shared-poller.spec.ts', 'test/shutdown.e2e-spec.ts'],
    why: 'the claim pipeline completes while a claim is in flight: a stop does not wait for it',
  },
  // ---- dashboard: redaction
  {
    id: 'redact-throwing-rule-fails-open',
    area: 'dashboard redaction',
    file: 'lib/dashboard/redact-value.ts',
    from: 'the value is hidden: ${String(error)}`);\n    return { hidden: true };',
    to: 'the value is hidden: ${String(error)}`);\n    return { hidden: false, value };',
    tests: ['test/dashboard-api.e2e-spec.ts', 'test/dashboard-options.spec.ts'],
    why: 'a redaction rule that throws shows the value it was meant to hide',
  },
  // ---- admin: idle waits and failure groups
  {
    id: 'wait-idle-timeout-waits-interval',
    area: 'admin reads',
    file: 'lib/admin/wait-until-idle.ts',
    from: 'timer(Math.min(interval, left))',
    to: 'timer(interval)',
    tests: ['test/wait-until-idle.spec.ts', 'test/testing-helpers.e2e-spec.ts'],
    why: 'waitUntilIdle with a timeout shorter than its interval waits the whole interval before it times out',
  },
  {
    id: 'failure-groups-ties-oldest-first',
    area: 'admin reads',
    file: 'lib/admin/failure-groups.ts',
    from: 'b.count - a.count || b.lastFailedAt.getTime() - a.lastFailedAt.getTime()',
    to: 'b.count - a.count || a.lastFailedAt.getTime() - b.lastFailedAt.getTime()',
    tests: ['test/failure-groups.spec.ts', 'test/dashboard-failures.e2e-spec.ts'],
    why: 'failure groups of equal counts come oldest first, not newest first',
  },
  // ---- cli commands: defaults and what they read
  {
    id: 'cli-jobs-default-limit',
    area: 'cli commands',
    file: 'lib/cli/commands/jobs.command.ts',
    from: "integerOption('jobs', 'limit', context.values.limit, 50, 1, 1000)",
    to: "integerOption('jobs', 'limit', context.values.limit, 100, 1, 1000)",
    tests: ['test/cli.e2e-spec.ts', 'test/cli-read-only.e2e-spec.ts'],
    why: '`jobs` without --limit lists 100 jobs, where its help says 50',
  },
  {
    id: 'cli-clean-default-keeps-cancelled',
    area: 'cli commands',
    file: 'lib/cli/commands/clean.command.ts',
    from: "const FINISHED: JobStatus[] = ['completed', 'failed', 'cancelled'];",
    to: "const FINISHED: JobStatus[] = ['completed', 'failed'];",
    tests: ['test/cli.e2e-spec.ts'],
    why: '`clean` without --status leaves cancelled jobs, where its help says every finished status',
  },
  {
    id: 'cli-status-claimed-workers-unnamed',
    area: 'cli commands',
    file: 'lib/cli/commands/status.command.ts',
    from: 'queue.counts.running + queue.counts.claimed > 0',
    to: 'queue.counts.running > 0',
    tests: ['test/cli.e2e-spec.ts', 'test/cli-read-only.e2e-spec.ts'],
    why: '`status` names no worker for a queue whose running jobs are all claimed ahead, not started',
  },
  {
    id: 'cli-cancel-cascade-dropped',
    area: 'cli commands',
    file: 'lib/cli/commands/cancel.command.ts',
    from: 'await admin.cancel(id, { cascade: context.values.cascade === true });',
    to: 'await admin.cancel(id);',
    tests: ['test/cli.e2e-spec.ts'],
    why: '`cancel --cascade` cancels the job alone: its descendants in the flow stay live',
  },
  {
    id: 'cli-migrate-dry-run-applied-step',
    area: 'cli commands',
    file: 'lib/cli/commands/migrate.command.ts',
    from: '.filter((step) => step.version > version);',
    to: '.filter((step) => step.version >= version);',
    tests: ['test/cli-read-only.e2e-spec.ts', 'test/cli.e2e-spec.ts'],
    why: '`migrate --dry-run` prints the step the schema is already at among those still to apply',
  },
  {
    id: 'cli-promote-schema-name-51',
    area: 'cli commands',
    file: 'lib/cli/commands/promote.command.ts',
    from: '/^[A-Za-z_][A-Za-z0-9_]{0,49}$/',
    to: '/^[A-Za-z_][A-Za-z0-9_]{0,50}$/',
    tests: ['test/cli.e2e-spec.ts', 'test/promote.e2e-spec.ts'],
    why: '`promote --schema` takes a name of 51 characters, where its message says at most 50',
  },
  // ---- poller: the share of a claim among queues
  {
    id: 'pool-claims-past-free',
    area: 'poller',
    file: 'lib/poller/worker-pool.ts',
    from: 'if (entry.limit < entry.free) {',
    to: 'if (entry.limit <= entry.free) {',
    tests: ['test/worker-pool.spec.ts'],
    why: 'a queue is asked for one job more than its free slots when the budget allows',
  },
  // ---- dashboard hosts: the DNS-rebinding check
  {
    id: 'allowed-host-authority-ignored',
    area: 'dashboard hosts',
    file: 'lib/dashboard/allowed-host.guard.ts',
    from: "const raw = headers.host ?? headers[':authority'];",
    to: 'const raw = headers.host;',
    tests: ['test/dashboard-api.e2e-spec.ts', 'test/dashboard.e2e-spec.ts'],
    why: 'an HTTP/2 request that names its host only in :authority is refused (421)',
  },
  // ---- producer writes: the flow's announcements
  {
    id: 'flow-root-not-announced',
    area: 'producer writes',
    file: 'lib/producer/queue-producer.service.ts',
    from: 'for (let index = 1; index <= nodes.length; index++) {',
    to: 'for (let index = 1; index < nodes.length; index++) {',
    tests: ['test/flows.e2e-spec.ts', 'test/events.e2e-spec.ts'],
    why: "a flow's root gets no `added` event (its children do)",
  },
  // ---- scheduler: the wake for a schedule more frequent than the period
  {
    id: 'scheduler-frequent-wakes-late',
    area: 'scheduler',
    file: 'lib/scheduler/scheduler.ts',
    from: 'if (soonest < now + this.period) this.task.runAt(soonest);',
    to: 'if (soonest < now) this.task.runAt(soonest);',
    tests: ['test/scheduler.spec.ts'],
    why: 'an occurrence due between two ticks waits for the next tick',
  },
  // ---- metrics: the nearest rank
  {
    id: 'metrics-percentile-rank-late',
    area: 'metrics',
    file: 'lib/metrics/compute-metrics.ts',
    from: 'Math.ceil((p / 100) * sorted.length) - 1',
    to: 'Math.floor((p / 100) * sorted.length)',
    tests: ['test/compute-metrics.spec.ts', 'test/health-metrics.e2e-spec.ts'],
    why: 'percentiles take the value one rank above the nearest rank where p% of the sample is a whole number',
  },
  // ---- completion by change count (SQLite): the short batch's read-back
  {
    id: 'completion-count-short-by-one-all-ours',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'if (changed === rest.length) {',
    to: 'if (changed >= rest.length - 1) {',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'a batch one attempt short reads as all ours: the lost attempt is announced completed',
  },
  {
    id: 'completion-count-single-owned-not-read',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'if (changed > 0) for (const row',
    to: 'if (changed > 1) for (const row',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'a short batch with one attempt still ours reports none: that completed job is logged as lost and never announced',
  },
  {
    id: 'completion-readback-any-time',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: `AND +${T}.status = 'completed'\n    AND +${T}.finished_at = ?\`;`,
    to: `AND +${T}.status = 'completed' AND ? IS NOT NULL\`;`,
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'the read-back takes any completion of the same attempt by this worker: a stale item of a job completed earlier reads as completed again',
  },
  {
    id: 'completion-readback-indexed',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'CROSS JOIN ${T} NOT INDEXED',
    to: 'CROSS JOIN ${T}',
    tests: ['test/sqlite-completion-plan.spec.ts'],
    why: 'with statistics taken while the finished index was empty, the read-back walks that whole index for every item',
  },
  {
    id: 'typeorm-runner-label-first',
    area: 'completion count',
    file: 'lib/storage/shared/statement-runner.ts',
    from: "return sql.replace(LEADING_LABEL, '$2 $1');",
    to: 'return sql;',
    tests: ['test/sqlite-statements.spec.ts', 'test/complete-in.e2e-spec.ts'],
    why: "on an application's own node-sqlite3 DataSource, and in a caller's transaction (job.completeIn), every labelled write reads as having changed nothing: completions are taken as lost",
  },
  // ---- waits: a failed first look
  {
    id: 'wait-first-look-transient-rejects',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: 'if (isTransientStorageError(error)) return this.failures.failed(error);',
    to: '',
    tests: ['test/finish-watcher.spec.ts'],
    why: "a connection lost during a wait's first look rejects the wait with the driver's error instead of looking again",
  },
  {
    id: 'wait-first-look-raw-error',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: "waiter.reject(asStorageError(error, 'waitUntilFinished', `job ${id}`) as Error);",
    to: 'waiter.reject(error as Error);',
    tests: ['test/finish-watcher.spec.ts'],
    why: "a wait whose first look fails for good rejects with the driver's raw error, not a StorageError",
  },
  // ---- round 7: the completion's read-back, the shared claimed-row decoder, the label move, the error kinds
  {
    id: 'completion-rest-keeps-only-deleted',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'rest = completions.filter(({ ref }) => !done.has(ref.id));',
    to: 'rest = completions.filter(({ ref }) => done.has(ref.id));',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: a round with a deleting completion updates the deleted attempts instead of the others: those stay running',
  },
  {
    id: 'completion-readback-ids-as-numbers',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'for (const row of await runner.all(COMPLETED_BY_SQL, [items, workerId, now])) done.add(String(row.id));',
    to: 'for (const row of await runner.all(COMPLETED_BY_SQL, [items, workerId, now])) done.add(row.id as string);',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "SQLite: a short batch's read-back answers numeric ids: the worker finds none of its string ids and logs every completed job of the batch as lost",
  },
  {
    id: 'completion-readback-params-swapped',
    area: 'completion count',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'COMPLETED_BY_SQL, [items, workerId, now]',
    to: 'COMPLETED_BY_SQL, [items, now, workerId]',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "SQLite: the read-back's owner and time bound in the wrong order: a short batch reads back none of the attempts it completed",
  },
  {
    id: 'transaction-runner-label-first',
    area: 'completion count',
    file: 'lib/storage/transactions/transaction-statements.ts',
    from: 'return (await this.runner.query(labelAfterVerb(sql), params, true)).affected ?? 0;',
    to: 'return (await this.runner.query(sql, params, true)).affected ?? 0;',
    tests: ['test/sqlite-statements.spec.ts', 'test/complete-in.e2e-spec.ts'],
    why: "a caller's transaction (job.completeIn) hands TypeORM the label first: on node-sqlite3 every completeIn reads as no longer ours",
  },
  {
    id: 'label-after-verb-greedy',
    area: 'completion count',
    file: 'lib/storage/shared/statement-runner.ts',
    from: 'const LEADING_LABEL = /^\\s*(\\/\\*.*?\\*\\/)\\s*(\\w+)/s;',
    to: 'const LEADING_LABEL = /^\\s*(\\/\\*.*\\*\\/)\\s*(\\w+)/s;',
    tests: ['test/sqlite-statements.spec.ts'],
    why: 'the label match runs to the last comment of the statement: a labelled write with a comment inside has its text cut and moved (a syntax error)',
  },
  {
    id: 'claimed-record-created-lease-swapped',
    area: 'claim decoder',
    file: 'lib/storage/shared/job-row.mapper.ts',
    from: '    createdAt,\n    leaseUntil,\n    name,\n    removeOn,',
    to: '    leaseUntil,\n    createdAt,\n    name,\n    removeOn,',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "the claimed-row decoder reads the packed fields out of order: a claimed job's creation is its lease's end and the other way round",
  },
  {
    id: 'claimed-record-updated-at-created',
    area: 'claim decoder',
    file: 'lib/storage/shared/job-row.mapper.ts',
    from: '    finishedAt: null,\n    updatedAt: now,\n  };\n}\n\n/** The record of a job just inserted',
    to: '    finishedAt: null,\n    updatedAt: createdAt,\n  };\n}\n\n/** The record of a job just inserted',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: 'a claimed job reads as last updated when it was created, not at the claim that just wrote it',
  },
  {
    id: 'sqlite-claim-packs-key-created-swapped',
    area: 'claim decoder',
    file: 'lib/storage/sqlite/sql/claim.sql.ts',
    from: 'timeout_ms, unique_key, created_at, lease_until',
    to: 'timeout_ms, created_at, unique_key, lease_until',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "SQLite's claim packs the key and the creation in the wrong order: the worker's job has its key as its creation time",
  },
  {
    id: 'pg-claim-id-as-number',
    area: 'claim decoder',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: 'json_build_array(id::text, queue',
    to: 'json_build_array(id, queue',
    tests: ['test/postgres-storage.e2e-spec.ts'],
    why: 'PostgreSQL packs the claimed id as a JSON number: an id past 2^53 is rounded and its completion completes nothing',
  },
  {
    id: 'pg-claim-packs-now-as-lease',
    area: 'claim decoder',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: 'created_at, $2::bigint, name',
    to: 'created_at, $3::bigint, name',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL's claim echoes its clock ($3) for the lease's end ($2): the claimed record's lease has ended as it is claimed",
  },
  {
    id: 'wait-first-look-failure-keeps-waiter',
    area: 'waits',
    file: 'lib/events/finish-watcher.ts',
    from: "if (this.remove(id, waiter)) waiter.reject(asStorageError(error, 'waitUntilFinished', `job ${id}`) as Error);",
    to: "waiter.reject(asStorageError(error, 'waitUntilFinished', `job ${id}`) as Error);",
    tests: ['test/finish-watcher.spec.ts'],
    why: 'a wait whose first look failed for good rejects but stays registered: the poll keeps reading the job for a wait that has ended',
  },
  {
    id: 'storage-failure-57p02-refused',
    area: 'error kinds',
    file: 'lib/errors/codes/storage-failure.ts',
    from: "['57P02', 'connection-lost'],",
    to: "['57P02', 'connection-refused'],",
    tests: ['test/storage-failure.spec.ts'],
    why: 'a session cut by a crash of another backend (57P02) reads as nothing accepting connections, not as a lost connection',
  },
  {
    id: 'storage-failure-bare-terminated',
    area: 'error kinds',
    file: 'lib/errors/codes/storage-failure.ts',
    from: '[/^Connection terminated( unexpectedly|$)/, ',
    to: '[/^Connection terminated unexpectedly/, ',
    tests: ['test/storage-failure.spec.ts'],
    why: "node-postgres's 'Connection terminated' (the client ended under a query) reads as an unexpected database error",
  },
  {
    id: 'storage-failure-released-by-message-only',
    area: 'error kinds',
    file: 'lib/errors/codes/storage-failure.ts',
    from: "if ((typeof name === 'string' && pattern.test(name)) || (typeof message === 'string' && pattern.test(message))) return kind;",
    to: "if (typeof message === 'string' && pattern.test(message)) return kind;",
    tests: ['test/storage-failure.spec.ts'],
    why: "a boot whose TypeORM query runner was released with its connection reads as 'unexpected database error' again",
  },
  {
    id: 'transient-57p03-dropped',
    area: 'error kinds',
    file: 'lib/errors/codes/transient-error.ts',
    from: "  '57P03',\n  // Node sockets",
    to: '  // Node sockets',
    tests: ['test/transient-error.spec.ts'],
    why: "a server still starting up (57P03) fails a wait's first look and an outcome's write for good instead of for now",
  },
  {
    id: 'transient-class-08-digits-only',
    area: 'error kinds',
    file: 'lib/errors/codes/transient-error.ts',
    from: '/^08[0-9A-Z]{3}$/',
    to: '/^08[0-9]{3}$/',
    tests: ['test/transient-error.spec.ts'],
    why: "PostgreSQL's connection errors whose SQLSTATE has a letter (08P01, protocol violation) read as permanent",
  },
  {
    id: 'slot-wait-first-by-zero-mean',
    area: 'claimed-ahead',
    file: 'lib/poller/slot-wait-estimate.ts',
    from: 'if (!this.recorded) {',
    to: 'if (this.mean === 0) {',
    tests: ['test/slot-wait-estimate.spec.ts'],
    why: 'the slot-wait estimate takes a first wait of 0 ms for no wait: the next wait restarts it, its spread guessed afresh',
  },
  {
    id: 'lookahead-margin-above-one',
    area: 'claimed-ahead',
    file: 'lib/utils/lookahead.util.ts',
    from: 'return mean >= 1 ? mean + 2 * Math.sqrt(mean) : mean;',
    to: 'return mean > 1 ? mean + 2 * Math.sqrt(mean) : mean;',
    tests: ['test/queue-worker.spec.ts'],
    why: "prefetch 'auto' claims no margin ahead where exactly one slot is expected to free during a claim",
  },
  {
    id: 'job-links-total-page-size',
    area: 'dependencies',
    file: 'lib/storage/shared/job-links.ts',
    from: 'total: rows.length > 0 ? Number(rows[0].total) : 0,',
    to: 'total: rows.length,',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "a job's dependencies and dependents are counted by the page shown, not in all: past the limit the counts stop at it",
  },
  {
    id: 'storage-error-transient-hides-kind',
    area: 'error kinds',
    file: 'lib/errors/storage.error.ts',
    from: "kind !== 'other' ? `${explainStorageFailure(kind)}: `",
    to: "kind !== 'other' && !transient ? `${explainStorageFailure(kind)}: `",
    tests: ['test/storage-failure.spec.ts', 'test/storage-errors.e2e-spec.ts'],
    why: "a StorageError of a lost connection (transient, kind connection-lost) says 'busy or unreachable for now', not that the connection was lost",
  },
  // ---- round 8: rate limits, the LISTEN connection, file identity, health, sort, search, run history, schedules,
  // the process registry, the schema check, error kinds
  {
    id: 'rate-pause-sqlite-shorter-wins',
    area: 'rate limits',
    file: 'lib/storage/sqlite/sql/limits.sql.ts',
    from: 'DO UPDATE SET limited_until = max(limited_until, excluded.limited_until)',
    to: 'DO UPDATE SET limited_until = excluded.limited_until',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: "SQLite: a RateLimitError's shorter pause replaces a longer one in place: the queue reopens early for every process",
  },
  {
    id: 'rate-pause-pg-shorter-wins',
    area: 'rate limits',
    file: 'lib/storage/postgres/sql/limits.sql.ts',
    from: 'DO UPDATE SET limited_until = GREATEST(q.limited_until, excluded.limited_until)',
    to: 'DO UPDATE SET limited_until = excluded.limited_until',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: "PostgreSQL: a RateLimitError's shorter pause replaces a longer one in place",
  },
  {
    id: 'group-pause-sqlite-shorter-wins',
    area: 'rate limits',
    file: 'lib/storage/sqlite/sql/group-limits.sql.ts',
    from: 'DO UPDATE SET limited_until = max(limited_until, excluded.limited_until)',
    to: 'DO UPDATE SET limited_until = excluded.limited_until',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/group-limiter.e2e-spec.ts'],
    why: "SQLite: a GroupRateLimitError's shorter pause replaces a longer one of the same group",
  },
  {
    id: 'rate-pause-local-shorter-wins',
    area: 'rate limits',
    file: 'lib/worker/rate-limit-pause.ts',
    from: 'if (group === undefined) this.until = Math.max(this.until, until);',
    to: 'if (group === undefined) this.until = until;',
    tests: ['test/queue-worker.spec.ts', 'test/queue-limits.e2e-spec.ts'],
    why: "the worker's own pause takes the last RateLimitError's end: a shorter one lets jobs claimed in flight start during the longer pause",
  },
  {
    id: 'pg-listener-backoff-first-doubled',
    area: 'pg listener',
    file: 'lib/storage/postgres/postgres-notification-listener.ts',
    from: '2 ** Math.min(this.failures - 1, 20)',
    to: '2 ** Math.min(this.failures, 20)',
    tests: ['test/pg-notification-listener.spec.ts'],
    why: 'the LISTEN reconnect waits twice its initial delay the first time, and reaches its cap one failure early',
  },
  {
    id: 'pg-listener-failures-kept',
    area: 'pg listener',
    file: 'lib/storage/postgres/postgres-notification-listener.ts',
    from: '      this.failures = 0;\n',
    to: '',
    tests: ['test/pg-notification-listener.spec.ts'],
    why: 'a re-established LISTEN connection keeps its failure count: the next outage is not logged, and its back-off starts where the last one ended',
  },
  {
    id: 'file-identity-replaced-same-device-only',
    area: 'file identity',
    file: 'lib/storage/sqlite/file-identity-watch.ts',
    from: 'stats.dev !== this.identity.dev || stats.ino !== this.identity.ino',
    to: 'stats.dev !== this.identity.dev && stats.ino !== this.identity.ino',
    tests: ['test/database-file-lost.e2e-spec.ts'],
    why: 'a database file replaced by another on the same device (a restore, an mv) is not noticed',
  },
  {
    id: 'health-poller-silence-min',
    area: 'health',
    file: 'lib/health/queue-health.indicator.ts',
    from: 'Math.max(3 * pollInterval, 5000)',
    to: 'Math.min(3 * pollInterval, 5000)',
    tests: ['test/queue-health-indicator.spec.ts', 'test/health-metrics.e2e-spec.ts'],
    why: "the poller's default silence bound is at most 5 s instead of at least: a poller with a 1 s interval is down after 3 s",
  },
  {
    id: 'health-before-first-round-down',
    area: 'health',
    file: 'lib/health/queue-health.indicator.ts',
    from: 'const heardFrom = lastRound ?? runtime?.startedAt ?? null;',
    to: 'const heardFrom = lastRound;',
    tests: ['test/queue-health-indicator.spec.ts', 'test/health-metrics.e2e-spec.ts'],
    why: 'a poller that has not finished its first round is reported down (a slow first claim at boot fails the health check)',
  },
  {
    id: 'health-own-queues-unprocessed',
    area: 'health',
    file: 'lib/health/queue-health.indicator.ts',
    from: 'unprocessed.map((row) => row.queue).filter((queue) => !local.has(queue))',
    to: 'unprocessed.map((row) => row.queue)',
    tests: ['test/queue-health-indicator.spec.ts', 'test/health-metrics.e2e-spec.ts', 'test/unprocessed-queues.e2e-spec.ts'],
    why: "this process's own queues are listed as unprocessed before its first announcement lands",
  },
  {
    id: 'sort-priority-run-at-same-direction',
    area: 'job sort',
    file: 'lib/storage/shared/job-sort.ts',
    from: 'return `priority ${d}, run_at ${r}, id ${r}`;',
    to: 'return `priority ${d}, run_at ${d}, id ${r}`;',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/list-jobs-paging.e2e-spec.ts'],
    why: 'a listing by priority orders jobs of equal priority newest run time first: not the order the claim takes them',
  },
  {
    id: 'sort-finished-nulls-unplaced',
    area: 'job sort',
    file: 'lib/storage/shared/job-sort.ts',
    from: 'return `finished_at IS NULL, finished_at ${d}, id ${d}`;',
    to: 'return `finished_at ${d}, id ${d}`;',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/list-jobs-paging.e2e-spec.ts'],
    why: 'a listing by finish time puts unfinished jobs where the backend places NULL (first on SQLite ascending, on PostgreSQL descending)',
  },
  {
    id: 'search-sqlite-key-case-sensitive',
    area: 'search',
    file: 'lib/storage/sqlite/sql/search.sql.ts',
    from: 'OR instr(lower(unique_key), lower(?)) > 0',
    to: 'OR instr(unique_key, lower(?)) > 0',
    tests: ['test/search.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'SQLite: a search finds a unique key only when it is written in lower case',
  },
  {
    id: 'runs-repeated-attempt-newest-error',
    area: 'run history',
    file: 'lib/views/to-job-runs.ts',
    from: 'errors.findIndex((entry, index) => index >= next && entry.attempt === run.attempt)',
    to: 'errors.findIndex((entry) => entry.attempt === run.attempt)',
    tests: ['test/run-history.e2e-spec.ts'],
    why: "a job retried by an operator shows its newest life's error on the runs of the same attempt number in its earlier life",
  },
  {
    id: 'schedule-timezone-change-unseen',
    area: 'schedules',
    file: 'lib/scheduler/schedule-definition.ts',
    from: 'a.every === b.every && a.timezone === b.timezone && a.data',
    to: 'a.every === b.every && a.data',
    tests: ['test/scheduler.spec.ts', 'test/schedules.e2e-spec.ts'],
    why: "a redeploy that changes only a cron schedule's time zone is taken for the same schedule: it keeps firing in the old zone",
  },
  {
    id: 'schedule-every-next-at-after',
    area: 'schedules',
    file: 'lib/scheduler/schedule-definition.ts',
    from: 'if (anchor > after) return anchor;',
    to: 'if (anchor >= after) return anchor;',
    tests: ['test/scheduler.spec.ts', 'test/schedules.e2e-spec.ts'],
    why: "an every schedule's next occurrence after a time on its grid is that time again, not the next one",
  },
  {
    id: 'processes-worker-last-seen-last-row',
    area: 'process registry',
    file: 'lib/admin/to-processes.ts',
    from: 'if (row.lastSeen > worker.lastSeen.getTime()) worker.lastSeen = new Date(row.lastSeen);',
    to: 'worker.lastSeen = new Date(row.lastSeen);',
    tests: ['test/to-processes.spec.ts', 'test/operator-admin.e2e-spec.ts'],
    why: "a worker running jobs of several queues is last seen at its last queue's latest write, not at its latest write of all",
  },
  {
    id: 'schema-extra-columns-ignored',
    area: 'schema',
    file: 'lib/storage/shared/schema-migration.ts',
    from: 'if (missing.length === 0 && extra.length === 0) return null;',
    to: 'if (missing.length === 0) return null;',
    tests: ['test/sqlite-schema-shape.spec.ts', 'test/schema-upgrade.e2e-spec.ts', 'test/schema-migrations.e2e-spec.ts'],
    why: "the schema check does not see a table with columns the version does not have (a newer build's, or one added by hand)",
  },
  {
    id: 'storage-failure-eai-again-refused',
    area: 'error kinds',
    file: 'lib/errors/codes/storage-failure.ts',
    from: "['EAI_AGAIN', 'host-not-found'],",
    to: "['EAI_AGAIN', 'connection-refused'],",
    tests: ['test/storage-failure.spec.ts', 'test/database-open.e2e-spec.ts'],
    why: 'a host name whose lookup failed for now (EAI_AGAIN) is told as a server refusing connections',
  },
  {
    id: 'storage-failure-cause-not-followed',
    area: 'error kinds',
    file: 'lib/errors/codes/storage-failure.ts',
    from: 'current = driverError ?? cause;',
    to: 'current = driverError;',
    tests: ['test/storage-failure.spec.ts', 'test/database-open.e2e-spec.ts'],
    why: "an error's `cause` chain is not read: a wrapped driver error is 'unexpected database error'",
  },
  // ---- round 9: the code of the last two days (the outcome path, the completion's change count, claimed-ahead
  // counts, the PostgreSQL claim, the LISTEN connection's close, the dashboard's pager and action guard)
  {
    id: 'outcome-saving-aborted-also-retried',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: 'if (signal.aborted) return this.request.saved(null);',
    to: 'if (signal.aborted) this.request.saved(null);',
    tests: ['test/outcome-writer.spec.ts'],
    why: 'a transient write failure at forced shutdown tells the worker nothing landed, then retries all the same: the attempt is told twice',
  },
  {
    id: 'outcome-saving-refused-fail-gives-up',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: "if (current.kind === 'fail' && current.writeFailed) {",
    to: "if (current.kind === 'fail') {",
    tests: ['test/outcome-writer.spec.ts', 'test/hostile-outcomes.e2e-spec.ts'],
    why: "a handler's failure the database refuses (an error too large) is given up at once, not written once more as an OutcomeWriteError: the job waits for its lease to expire",
  },
  {
    id: 'outcome-one-by-one-all-owned',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: '      entry.resolve(owned.has(entry.ref.id));\n    }\n  }\n}',
    to: '      entry.resolve(true);\n    }\n  }\n}',
    tests: ['test/outcome-writer.spec.ts'],
    why: 'a refused batch written again one by one reads every completion as landed: one whose attempt was no longer ours is announced completed',
  },
  {
    id: 'outcome-batch-split-from-three',
    area: 'outcome path',
    file: 'lib/worker/outcome-writer.ts',
    from: 'if (batch.length > 1 && !isTransientStorageError(error)) await this.writeOneByOne(batch);',
    to: 'if (batch.length > 2 && !isTransientStorageError(error)) await this.writeOneByOne(batch);',
    tests: ['test/outcome-writer.spec.ts', 'test/hostile-outcomes.e2e-spec.ts'],
    why: 'a refused completion batch of two is not written again one by one: the good completion beside the refused one fails with it',
  },
  {
    id: 'sqlite-complete-result-from-start',
    area: 'completion',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: "SET status = 'completed', result = j.value ->> 2,",
    to: "SET status = 'completed', result = j.value ->> 3,",
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "SQLite's completion reads the wrong item for the result: a completed job's result is its start time",
  },
  {
    id: 'sqlite-complete-batch-size-from-start',
    area: 'run batch',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'run_batch = coalesce(j.value ->> 4, run_batch)',
    to: 'run_batch = coalesce(j.value ->> 3, run_batch)',
    tests: ['test/batch-run-history.e2e-spec.ts'],
    why: "SQLite's batched completion keeps the start time as the run's batch size",
  },
  {
    id: 'sqlite-complete-delete-every-completion',
    area: 'delete on complete',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'JSON.stringify(completions.filter(({ remove }) => remove).map(',
    to: 'JSON.stringify(completions.map(',
    tests: ['test/delete-on-complete.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'a round holding one job whose retention keeps nothing deletes every job of the round, also those whose retention keeps them',
  },
  {
    id: 'sqlite-complete-delete-only-when-all',
    area: 'delete on complete',
    file: 'lib/storage/sqlite/sql/outcomes.sql.ts',
    from: 'if (completions.some(({ remove }) => remove)) {',
    to: 'if (completions.every(({ remove }) => remove)) {',
    tests: ['test/delete-on-complete.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: 'a round mixing removable and kept completions deletes none: the removable rows are kept as completed',
  },
  {
    id: 'sqlite-counts-claimed-every-running',
    area: 'claimed ahead',
    file: 'lib/storage/sqlite/sql/inspect.sql.ts',
    from: "'claimed' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'running' AND started_at IS NULL",
    to: "'claimed' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'running'",
    tests: ['test/claimed-ahead.e2e-spec.ts'],
    why: "SQLite's counts take every running job for claimed ahead: running reads 0 while handlers run",
  },
  {
    id: 'sqlite-group-claimed-every-running',
    area: 'claimed ahead',
    file: 'lib/storage/sqlite/sql/groups.sql.ts',
    from: "WHERE status = 'running' AND started_at IS NULL AND queue = ? AND job_group = ?",
    to: "WHERE status = 'running' AND queue = ? AND job_group = ?",
    tests: ['test/claimed-ahead.e2e-spec.ts', 'test/groups.e2e-spec.ts'],
    why: "SQLite's group counts take every running job of the group for claimed ahead",
  },
  {
    id: 'pg-counts-claimed-every-running',
    area: 'claimed ahead',
    file: 'lib/storage/postgres/sql/inspect.sql.ts',
    from: "WHERE status = 'running' AND started_at IS NULL ${queueFilter} GROUP BY queue",
    to: "WHERE status = 'running' ${queueFilter} GROUP BY queue",
    tests: ['test/claimed-ahead.e2e-spec.ts'],
    why: "PostgreSQL's counts take every running job for claimed ahead: running reads 0 while handlers run",
  },
  {
    id: 'pg-group-claimed-every-running',
    area: 'claimed ahead',
    file: 'lib/storage/postgres/sql/groups.sql.ts',
    from: "WHERE status = 'running' AND started_at IS NULL AND queue = $1 AND job_group = $2",
    to: "WHERE status = 'running' AND queue = $1 AND job_group = $2",
    tests: ['test/claimed-ahead.e2e-spec.ts', 'test/groups.e2e-spec.ts'],
    why: "PostgreSQL's group counts take every running job of the group for claimed ahead",
  },
  {
    id: 'pg-claim-keeps-last-start',
    area: 'pg claim',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: 'lease_until = $2, started_at = NULL, updated_at = $3',
    to: 'lease_until = $2, updated_at = $3',
    tests: ['test/claimed-ahead.e2e-spec.ts', 'test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL's claim keeps the previous attempt's start: a retried job claimed ahead reads as running, and its run the old start",
  },
  {
    id: 'pg-claim-plain-ignores-run-at-order',
    area: 'pg claim',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: 'ORDER BY priority DESC, run_at, id\n          LIMIT request.lim',
    to: 'ORDER BY priority DESC, id\n          LIMIT request.lim',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/core.e2e-spec.ts'],
    why: "PostgreSQL's plain claim takes due jobs of one priority by id, not by due time: a job made due earlier (a delay, a promote) waits behind later-added ones",
  },
  {
    id: 'pg-claim-plain-ignores-pause',
    area: 'pg claim',
    file: 'lib/storage/postgres/sql/claim.sql.ts',
    from: "WHERE ${notPaused(Q, 'request.queue')}",
    to: 'WHERE true',
    tests: ['test/storage-contract.e2e-spec.ts'],
    why: "PostgreSQL's plain claim (no limit, no group) does not look at the queue's pause: a paused queue keeps running",
  },
  {
    id: 'claimed-record-max-attempts-backoff-swapped',
    area: 'claim decoder',
    file: 'lib/storage/shared/job-row.mapper.ts',
    from: '    maxAttempts,\n    backoff,\n    timeout,\n    key,\n    createdAt,',
    to: '    backoff,\n    maxAttempts,\n    timeout,\n    key,\n    createdAt,',
    tests: ['test/storage-contract.e2e-spec.ts', 'test/retry.e2e-spec.ts'],
    why: "the claimed-row decoder swaps the attempt limit and the backoff: a worker's job has its backoff text as its attempt limit",
  },
  {
    id: 'pg-listener-close-attempt-unsettled',
    area: 'pg listener',
    file: 'lib/storage/postgres/postgres-notification-listener.ts',
    from: '    this.abandonAttempt?.();\n',
    to: '',
    tests: ['test/pg-notification-listener.spec.ts'],
    why: 'close() during a reconnect waits for a connect that node-postgres never settles once its client was ended: close() never returns',
  },
  {
    id: 'dashboard-last-page-past-end',
    area: 'dashboard',
    file: 'lib/dashboard/browser/job-table.browser.ts',
    from: 'Math.floor((data.total - 1) / data.limit) * data.limit',
    to: 'Math.floor(data.total / data.limit) * data.limit',
    tests: ['test/dashboard-operator.e2e-spec.ts'],
    why: "past the end of a list of a whole number of pages, the 'Last page' link leads past the end again",
  },
  {
    id: 'dashboard-action-guard-never-cleared',
    area: 'dashboard',
    file: 'lib/dashboard/browser/server.browser.ts',
    from: '    inFlight.delete(key);\n',
    to: '',
    tests: ['test/dashboard-operator.e2e-spec.ts'],
    why: 'an answered action stays marked in flight: the same action on the same thing a second time (pause a queue again after resuming it) sends nothing',
  },
  {
    id: 'dashboard-failures-link-unclamped',
    area: 'dashboard',
    file: 'lib/dashboard/browser/failures-panel.browser.ts',
    from: "title: label, text: label, class: 'clamp' })\n            : h('span'",
    to: "title: label, text: label })\n            : h('span'",
    tests: ['test/dashboard-failures.e2e-spec.ts'],
    why: "the Failures by error panel's searchable error is shown whole: a message of thousands of characters fills screens",
  },
];

function parseArgs(argv) {
  const args = { only: null, area: null, json: null, with: null, quick: false, check: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--only') args.only = value().split(',');
    else if (arg === '--area') args.area = value().split(',');
    else if (arg === '--json') args.json = value();
    else if (arg === '--with') args.with = value().split(',');
    else if (arg === '--quick') args.quick = true;
    else if (arg === '--check') args.check = true;
    else if (arg === '--list') args.list = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  return args;
}

function occurrences(text, part) {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) count++;
  return count;
}

/** Refuses the list when an id repeats, a test file is missing, or a `from` does not occur exactly once. */
function checkMutations(mutations) {
  const problems = [];
  const ids = new Set();
  for (const m of mutations) {
    if (ids.has(m.id)) problems.push(`${m.id}: the id repeats`);
    ids.add(m.id);
    if (m.from === m.to) problems.push(`${m.id}: from and to are the same`);
    const path = join(ROOT, m.file);
    if (!existsSync(path)) {
      problems.push(`${m.id}: ${m.file} does not exist`);
      continue;
    }
    const found = occurrences(readFileSync(path, 'utf8'), m.from);
    if (found !== 1) problems.push(`${m.id}: \`from\` occurs ${found} times in ${m.file} (must be exactly once)`);
    for (const test of m.tests) if (!existsSync(join(ROOT, test))) problems.push(`${m.id}: test file ${test} does not exist`);
  }
  return problems;
}

// The one mutation applied right now (restored by `restore`, also from a signal handler) and the jest run in flight.
let applied = null;
let running = null;

function restore() {
  if (!applied) return;
  writeFileSync(applied.path, applied.original);
  applied = null;
}

function onSignal(signal) {
  if (running) {
    try {
      process.kill(-running.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  restore();
  process.stderr.write(`\nmutation-trial: ${signal}, file restored, stopping\n`);
  process.exit(130);
}

/** Runs jest on `tests` (or the quick selection); resolves with its exit code, its output, and its JSON report. */
function runJest(tests, quick, reportPath) {
  const env = { ...process.env };
  // --forceExit: a planted bug can leave a timer or a connection open (a close it breaks), and jest would then wait for
  // it after its report is written, for ever; the verdict is read from the report, so ending there changes nothing.
  const jestArgs = ['jest', '--ci', '--forceExit', '--json', `--outputFile=${reportPath}`];
  if (quick) {
    Object.assign(env, { QUEUE_TEST_QUICK: '1', QUEUE_TEST_BACKENDS: 'sqlite3', QUEUE_TEST_POSTGRES: 'off' });
    jestArgs.push('--selectProjects', 'unit', 'e2e');
  } else {
    jestArgs.push('--selectProjects', 'unit', 'e2e', '--runTestsByPath', ...tests);
  }
  rmSync(reportPath, { force: true });
  return new Promise((resolve) => {
    const output = [];
    const child = spawn('npx', jestArgs, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running = child;
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(String(error))));
    child.on('close', (code, signal) => {
      running = null;
      let report = null;
      try {
        report = JSON.parse(readFileSync(reportPath, 'utf8'));
      } catch {
        // no report: jest failed before it ran anything (a config or global setup that threw)
      }
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString('utf8'), report });
    });
  });
}

/** caught / missed / error, with the failed tests (file > test name) or why it is an error. */
function verdictOf({ code, output, report }) {
  const failed = [];
  const broken = [];
  for (const suite of report?.testResults ?? []) {
    const file = relative(ROOT, suite.name);
    for (const test of suite.assertionResults ?? []) if (test.status === 'failed') failed.push(`${file} > ${test.fullName}`);
    // A suite that did not run (compile error, a hook that threw before any test): no test of it failed as such.
    if (suite.status === 'failed' && (suite.assertionResults ?? []).every((test) => test.status !== 'failed')) {
      broken.push(
        `${file}: ${
          String(suite.message || '')
            .split('\n')
            .find((line) => line.trim()) ?? 'failed to run'
        }`,
      );
    }
  }
  if (failed.length > 0) return { verdict: 'caught', failed, broken };
  // No test ran: every one was skipped, as a file whose backends the run leaves out is (the dashboard's browser files
  // run on better-sqlite3 and postgres only). Nothing was tried, so nothing was missed.
  if (code === 0 && report?.success && report.numPassedTests === 0) {
    return { verdict: 'error', failed, broken, detail: "no test ran: every test of these files was skipped on this run's backends" };
  }
  if (code === 0 && report?.success) return { verdict: 'missed', failed, broken };
  const tail = output.trim().split('\n').slice(-15).join('\n');
  return { verdict: 'error', failed, broken, detail: broken.length ? broken.join('\n') : tail };
}

function table(results) {
  const rows = results.map((r) => [
    r.id,
    r.area,
    r.verdict,
    `${r.seconds}s`,
    r.verdict === 'caught'
      ? `${r.failed.length} failed, first: ${r.failed[0]}`
      : r.verdict === 'error'
        ? (r.detail || '').split('\n')[0]
        : '-',
  ]);
  const head = ['id', 'area', 'verdict', 'time', 'caught by'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => Math.min(row[i].length, i === 4 ? 140 : 60))));
  const line = (cells) => cells.map((cell, i) => (i === 4 ? cell.slice(0, 140) : cell.padEnd(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const problems = checkMutations(MUTATIONS);
  if (problems.length > 0) {
    process.stderr.write(`mutation-trial: the list is out of date, nothing was run:\n  ${problems.join('\n  ')}\n`);
    process.exit(2);
  }
  let chosen = MUTATIONS;
  if (args.only) {
    const unknown = args.only.filter((id) => !MUTATIONS.some((m) => m.id === id));
    if (unknown.length) throw new Error(`--only: unknown mutation(s) ${unknown.join(', ')}`);
    chosen = MUTATIONS.filter((m) => args.only.includes(m.id));
  }
  if (args.area) {
    const unknown = args.area.filter((area) => !MUTATIONS.some((m) => m.area === area));
    if (unknown.length) throw new Error(`--area: unknown area(s) ${unknown.join(', ')}`);
    chosen = chosen.filter((m) => args.area.includes(m.area));
  }
  if (args.list) {
    for (const m of chosen) process.stdout.write(`${m.id}  [${m.area}]  ${m.file}\n    ${m.why}\n    tests: ${m.tests.join(' ')}\n`);
    return;
  }
  if (args.check) {
    process.stdout.write(`mutation-trial: ${MUTATIONS.length} mutations, each \`from\` found exactly once\n`);
    return;
  }
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  const scratch = join(ROOT, '.tmp', 'mutation-trial');
  mkdirSync(scratch, { recursive: true });
  const started = Date.now();
  const results = [];
  for (const m of chosen) {
    const path = join(ROOT, m.file);
    const original = readFileSync(path, 'utf8');
    const tests = args.with ?? m.tests;
    process.stdout.write(`\n=== ${m.id} (${m.area}): ${m.why}\n    ${args.quick ? 'npm run test:quick' : tests.join(' ')}\n`);
    const at = Date.now();
    let run;
    try {
      applied = { path, original };
      writeFileSync(
        path,
        original.replace(m.from, () => m.to),
      );
      run = await runJest(tests, args.quick, join(scratch, `${m.id}.json`));
    } finally {
      restore();
    }
    if (readFileSync(path, 'utf8') !== original) throw new Error(`${m.file} was not restored`);
    const result = {
      id: m.id,
      area: m.area,
      file: m.file,
      why: m.why,
      tests: args.quick ? ['npm run test:quick'] : tests,
      seconds: Math.round((Date.now() - at) / 1000),
      ...verdictOf(run),
    };
    results.push(result);
    process.stdout.write(
      `    -> ${result.verdict} in ${result.seconds}s${result.failed.length ? `: ${result.failed.slice(0, 3).join('; ')}` : ''}` +
        `${result.verdict === 'error' ? `\n${result.detail}` : ''}\n`,
    );
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const count = (verdict) => results.filter((r) => r.verdict === verdict).length;
  process.stdout.write(`\n${table(results)}\n\n`);
  process.stdout.write(`caught ${count('caught')} / ${results.length}, missed ${count('missed')}, error ${count('error')}; ${seconds}s\n`);
  if (args.json) writeFileSync(args.json, JSON.stringify({ seconds, results }, null, 2) + '\n');
  // Exit status: 0 when every mutation was caught.
  process.exitCode = count('caught') === results.length ? 0 : 1;
}

main().catch((error) => {
  restore();
  process.stderr.write(`mutation-trial: ${error && error.stack ? error.stack : error}\n`);
  process.exit(2);
});
