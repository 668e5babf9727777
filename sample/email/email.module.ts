import { Module } from '@nestjs/common';
import { EmailProcessor } from './email.processor';

/** A feature module: listing the processor as a provider is all it takes for the queue module to find it. */
@Module({ providers: [EmailProcessor] })
export class EmailModule {}
