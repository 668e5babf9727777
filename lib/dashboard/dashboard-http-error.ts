import {
  BadRequestException,
  ConflictException,
  HttpException,
  InternalServerErrorException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidJobStateError } from '../errors/invalid-job-state.error';
import { InvalidQueueNameError } from '../errors/invalid-queue-name.error';
import { JobKeyConflictError } from '../errors/job-key-conflict.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { QueueNotFoundError } from '../errors/queue-not-found.error';
import { JobWaitingForChildrenError } from '../errors/job-waiting-for-children.error';
import { ScheduleNotFoundError } from '../errors/schedule-not-found.error';

const logger = new Logger('JobQueue');

/**
 * The answer to a request that failed: the library's errors about the request itself (no such job or queue,
 * wrong state, bad argument) go back to the page with their message, as the operator needs it; anything else is logged with
 * what was being done, and answered 500 with its message.
 */
export function toHttpError(error: unknown, doing: string): HttpException {
  if (error instanceof HttpException) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof JobNotFoundError || error instanceof QueueNotFoundError || error instanceof ScheduleNotFoundError)
    return new NotFoundException({ message });
  if (error instanceof InvalidJobStateError || error instanceof JobKeyConflictError || error instanceof JobWaitingForChildrenError)
    return new ConflictException({ message });
  if (error instanceof InvalidArgumentError || error instanceof InvalidQueueNameError) return new BadRequestException({ message });
  logger.error(`Dashboard: ${doing} failed: ${message}`, error instanceof Error ? error.stack : undefined);
  return new InternalServerErrorException({ message: `${doing} failed: ${message}` });
}
