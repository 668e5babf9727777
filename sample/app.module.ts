import { Module } from '@nestjs/common';
import { SqliteQueueModule } from '../lib';
import { QueueDashboardModule } from '../lib/dashboard';
import { AlbumsModule } from './albums/albums.module';
import { BillingModule } from './billing/billing.module';
import { EmailModule } from './email/email.module';
import { EventsReporterService } from './events-reporter.service';
import { ImagesModule } from './images/images.module';
import { ProducerService } from './producer.service';
import { ProgressReporterService } from './progress-reporter.service';
import { ReportsModule } from './reports/reports.module';
import { RunSummaryService } from './run-summary.service';
import { SAMPLE_CONFIG } from './sample.config';

/**
 * The root module. `SqliteQueueModule.forRoot()` is imported once here, with the dashboard beside it; it is global, so the feature modules
 * need not import it to have their `@Processor` classes found, nor to inject `QueueProducer` / `QueueAdmin`
 * / `QueueEvents`.
 */
@Module({
  imports: [
    SqliteQueueModule.forRoot({ database: SAMPLE_CONFIG.database }),
    // The web dashboard (nestjs-sqlite-queue/dashboard in an app): see and operate every queue at /queues. No guard:
    // it listens on 127.0.0.1, and answers only localhost, IP addresses and SAMPLE_HOST (see docs/dashboard.md).
    QueueDashboardModule.forRoot({ path: '/queues', allowedHosts: SAMPLE_CONFIG.dashboardHosts }),
    EmailModule,
    ImagesModule,
    BillingModule,
    ReportsModule,
    AlbumsModule,
  ],
  providers: [ProducerService, ProgressReporterService, EventsReporterService, RunSummaryService],
})
export class AppModule {}
