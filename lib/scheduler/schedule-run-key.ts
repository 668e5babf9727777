import { randomInt } from 'node:crypto';

/**
 * The schedule key of a run made by hand (`QueueAdmin.runScheduleNow`): `<name>@` then the time in ms and six random
 * digits. Digits only, so it counts as one of the schedule's runs (`lastScheduleRun`), and 19 of them, so it never
 * equals an occurrence's key (`<name>@<occurrence time>`, 13 digits): a run made by hand is no duplicate of the
 * scheduled one, nor of another made in the same millisecond (a collision of the random part is retried).
 */
export function scheduleRunKey(name: string, now: number): string {
  return `${name}@${Math.trunc(now)}${String(randomInt(1_000_000)).padStart(6, '0')}`;
}
