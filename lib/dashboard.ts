/**
 * Entry point `nestjs-sqlite-queue/dashboard`: the web dashboard. Apart from the main entry so that an app that
 * does not mount it never loads it (its page, script and stylesheet are strings in these modules).
 */
export { QueueDashboardModule } from './dashboard/queue-dashboard.module';
export type {
  QueueDashboardOptions,
  DashboardRedaction,
  DashboardRedactOptions,
  DashboardRedactedField,
  DashboardRedactionSource,
  DashboardAuthorizeFunction,
} from './dashboard/interfaces/queue-dashboard-options.interface';
