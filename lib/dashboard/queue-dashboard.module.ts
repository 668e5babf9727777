import { DynamicModule, Module } from '@nestjs/common';
import { authorizeFunctionGuard } from './authorize-function.guard';
import { createDashboardController } from './create-dashboard-controller';
import { DashboardApi } from './dashboard-api.service';
import { DashboardInspectApi } from './dashboard-inspect-api.service';
import { DashboardMountCheck } from './dashboard-mount-check';
import { DashboardOperatorApi } from './dashboard-operator-api.service';
import { QueueDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';
import { resolveDashboardOptions } from './resolve-dashboard-options';

/**
 * The web dashboard: import `QueueDashboardModule.forRoot({ path: '/queues' })` beside `SqliteQueueModule` in an
 * app with an HTTP server (Express or Fastify). It reads and acts through `QueueAdmin` and `QueueProducer`, which
 * the (global) queue module provides. An app that does not import it has none of it: no route, no code loaded. In an
 * app without an HTTP server it serves nothing, and warns at boot.
 */
@Module({})
export class QueueDashboardModule {
  /** Mounts the dashboard at `options.path` (default `/queues`). @throws InvalidDashboardOptionsError. */
  static forRoot(options: QueueDashboardOptions = {}): DynamicModule {
    const resolved = resolveDashboardOptions(options);
    const guards = [...(options.guards ?? []), ...(options.authorize ? [authorizeFunctionGuard(options.authorize)] : [])];
    return {
      module: QueueDashboardModule,
      imports: options.imports ?? [],
      controllers: [createDashboardController(resolved, guards)],
      providers: [
        { provide: QUEUE_DASHBOARD_OPTIONS, useValue: resolved },
        DashboardApi,
        DashboardOperatorApi,
        DashboardInspectApi,
        DashboardMountCheck,
      ],
    };
  }
}
