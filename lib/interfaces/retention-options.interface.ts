/**
 * How many finished jobs of one outcome to keep: `true` removes them all, `false` keeps them all, a number
 * keeps at most that many (newest first), `{ count, age }` applies both bounds (`age` in ms since finishing).
 * Applied in batches by housekeeping, shortly after jobs finish, never one statement per job.
 */
export type RetentionOption = boolean | number | { count?: number; age?: number };
