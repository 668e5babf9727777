import { StoredQueueLimits } from '../storage-records';

/** A row of a queue's stored limits (`rate_max`... and the computed `until`) as the storage hands it out, on both backends. */
export function toStoredLimits(row: Record<string, unknown>, now: number): StoredQueueLimits {
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  const until = Number(row.until ?? 0);
  return {
    max: number(row.rate_max),
    duration: number(row.rate_duration),
    groupMax: number(row.group_rate_max),
    groupDuration: number(row.group_rate_duration),
    limitedUntil: until > now ? until : 0,
  };
}
