/** The names of the queue's tables (the same on both backends) and of the marks kept in them. */

/** The jobs table. */
export const JOBS_TABLE = 'nest_queue_jobs';

/** Per-queue state shared by all processes (paused). */
export const QUEUES_TABLE = 'nest_queue_queues';

/** Recurring job definitions. */
export const SCHEDULES_TABLE = 'nest_queue_schedules';

/** Job events published for other processes (only written by processes with `clusterEvents: true`). */
export const EVENTS_TABLE = 'nest_queue_events';

/** Processes currently reading cluster events (a heartbeat each): publishers write events only while one is recent. */
export const EVENT_READERS_TABLE = 'nest_queue_event_readers';

/**
 * Which process runs which processors (schema step 13): one row per process and queue, renewed by each processing
 * process's announcement beat, ended by its shutdown, pruned an hour after it ended.
 */
export const PROCESSES_TABLE = 'nest_queue_processes';

/**
 * Per-group rate windows and pauses (schema step 16): one row per queue and group that a group limiter counted or a
 * GroupRateLimitError paused lately; rows whose window and pause have both ended are pruned by the processor
 * announcer's beat.
 */
export const GROUP_LIMITS_TABLE = 'nest_queue_group_limits';

/**
 * The one row of the event readers table that is not a reader: the heartbeat of processes waiting for jobs to finish
 * (PostgreSQL), which turns the finish notifications on. Not a valid instance id, so no reader can collide with it.
 */
/** Which job waits for which (`dependsOn`): one row per edge, found both ways. */
export const DEPENDENCIES_TABLE = 'nest_queue_dependencies';

export const FINISH_WAITERS_MARK = '~finish-waiters';

/** The schema version each migration wrote; its presence also marks the tables beside it as this library's. */
export const MIGRATIONS_TABLE = 'nest_queue_migrations';
