/**
 * Entry point `nestjs-sqlite-queue/terminus`: the health indicator for @nestjs/terminus. It lives apart from the
 * main entry so that an application without terminus never meets it, not even as an optional peer dependency
 * (which npm still drags into peer resolution). `SqliteQueueModule` provides the indicator either way; it
 * returns terminus's result shape without importing terminus.
 */
export { QueueHealthIndicator } from './health/queue-health.indicator';
export type { QueueHealthOptions, QueueHealthResult } from './health/queue-health.indicator';
