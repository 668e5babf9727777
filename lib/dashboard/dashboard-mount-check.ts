import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';

/**
 * Says so at boot when the dashboard is imported into an application that has no HTTP server
 * (`NestFactory.createApplicationContext`): its controller is then mounted nowhere, and nothing else would tell.
 * A warning, not an error: a worker process may share the HTTP app's module on purpose.
 */
@Injectable()
export class DashboardMountCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('QueueDashboard');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(QUEUE_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.adapterHost.httpAdapter) return;
    this.logger.warn(
      `QueueDashboardModule is imported, but this application has no HTTP server (it was made with ` +
        `NestFactory.createApplicationContext), so the dashboard at ${this.options.path} is served nowhere. To serve it, ` +
        `create the app with NestFactory.create(AppModule) and call app.listen(port); in a process meant to serve ` +
        `nothing (a worker), leave QueueDashboardModule out of its modules.`,
    );
  }
}
