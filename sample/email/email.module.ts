import { Module } from '@nestjs/common';
import { SqliteQueueModule } from '../../lib';
import { EmailProcessor } from './email.processor';
import { EMAIL_QUEUE } from './send-email.job';

/**
 * The `email` queue's handle: `@InjectQueue('email')` in this module and in every module importing this one. Jobs
 * added through it get these defaults under their own options.
 */
const emailQueue = SqliteQueueModule.registerQueue({ name: EMAIL_QUEUE, defaultJobOptions: { maxAttempts: 5 } });

/** A feature module: listing the processor as a provider is all it takes for the queue module to find it. */
@Module({ imports: [emailQueue], providers: [EmailProcessor], exports: [emailQueue] })
export class EmailModule {}
