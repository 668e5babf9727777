/**
 * The injection token of a registered queue's handle (`SqliteQueueModule.registerQueue({ name })`). Use it to
 * override the handle in tests (`overrideProvider(getQueueToken('email'))`) or in a custom provider.
 */
export function getQueueToken(name: string): string {
  return `nest-queue:queue:${name}`;
}
