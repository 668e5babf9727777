import { Module } from '@nestjs/common';
import { ReportsProcessor } from './reports.processor';

/** Feature module of the `reports` queue, whose jobs come from a schedule rather than from the producer. */
@Module({ providers: [ReportsProcessor] })
export class ReportsModule {}
