import { Inject } from '@nestjs/common';
import { getQueueToken } from '../utils/get-queue-token.util';

/**
 * Injects the handle of a queue registered with `SqliteQueueModule.registerQueue({ name })` in the same module:
 * `constructor(@InjectQueue('email') private readonly email: Queue<SendEmail, string>) {}`.
 */
export function InjectQueue(name: string): ParameterDecorator & PropertyDecorator {
  return Inject(getQueueToken(name));
}
