/**
 * How long the heartbeat of processes waiting for jobs to finish counts (ms): three of their renewals (every 5 s), so
 * clock skew between machines is tolerated. While it is fresh, PostgreSQL announces finished jobs, and no backend
 * deletes a completed job in its completion (a waiter reads the finished row).
 */
export const FINISH_WAITERS_TTL = 15_000;
