import { Body, CanActivate, Controller, Get, HttpCode, NotFoundException, Param, Post, Query, Req, Type, UseGuards } from '@nestjs/common';
import { DASHBOARD_SCRIPT } from './assets/dashboard-script';
import { DASHBOARD_STYLE } from './assets/dashboard-style';
import { dashboardPage } from './assets/dashboard-page';
import { AllowedHostGuard } from './allowed-host.guard';
import { ActionAnswer, DashboardApi } from './dashboard-api.service';
import { DashboardHeaders } from './dashboard-headers.decorator';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { SameOriginGuard } from './same-origin.guard';

/** The request fields the page route reads, on Express and Fastify alike. */
interface RequestLike {
  originalUrl?: string;
  url?: string;
}

/**
 * A controller class of its own per `forRoot()`: its path and guards are decorator arguments, so each mount gets
 * a fresh class instead of metadata rewritten on a shared one. Nest routes it on whichever HTTP adapter the app
 * uses; everything is served from the package itself (no CDN): the page and stylesheet are strings, the script is read
 * once at load (assets/dashboard-script.ts).
 */
export function createDashboardController(
  options: Pick<ResolvedDashboardOptions, 'path' | 'allowedOrigins' | 'allowedHosts'>,
  guards: (Type<CanActivate> | CanActivate)[],
): Type<unknown> {
  const { path } = options;
  const sameOrigin = new SameOriginGuard(options.allowedOrigins);
  // First on every route: a request under a name this dashboard does not answer to runs none of the app's guards.
  const allowedHost = new AllowedHostGuard(new Set(options.allowedHosts));

  @Controller(path)
  class QueueDashboardController {
    constructor(private readonly api: DashboardApi) {}

    /** The page; its links and requests are absolute from the path it was reached at, so a global prefix is honoured. */
    @Get()
    @DashboardHeaders('text/html; charset=utf-8')
    page(@Req() request: RequestLike): string {
      const url = request.originalUrl ?? request.url ?? path;
      return dashboardPage(url.split('?')[0].replace(/\/+$/, ''));
    }

    @Get('assets/dashboard.js')
    @DashboardHeaders('text/javascript; charset=utf-8')
    script(): string {
      return DASHBOARD_SCRIPT;
    }

    @Get('assets/dashboard.css')
    @DashboardHeaders('text/css; charset=utf-8')
    style(): string {
      return DASHBOARD_STYLE;
    }

    @Get('api/overview')
    @DashboardHeaders('application/json; charset=utf-8')
    overview() {
      return this.api.overview();
    }

    @Get('api/schedules')
    @DashboardHeaders('application/json; charset=utf-8')
    schedules() {
      return this.api.schedules();
    }

    @Get('api/queues/:queue')
    @DashboardHeaders('application/json; charset=utf-8')
    queue(@Param('queue') queue: string, @Query() query: Record<string, string | undefined>) {
      return this.api.queue(queue, query);
    }

    @Get('api/jobs/:id')
    @DashboardHeaders('application/json; charset=utf-8')
    async job(@Param('id') id: string) {
      const job = await this.api.job(id);
      if (!job) throw new NotFoundException({ message: `No job has id ${id}: it may have been removed.` });
      return job;
    }

    @Post('api/queues/:queue/:action')
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    queueAction(@Param('queue') queue: string, @Param('action') action: string, @Body() body: unknown): Promise<ActionAnswer> {
      if (!['pause', 'resume', 'retry-failed', 'clean'].includes(action))
        throw new NotFoundException({ message: `Unknown action "${action}".` });
      return this.api.act(action, queue, asRecord(body));
    }

    @Post('api/jobs/:id/:action')
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    jobAction(@Param('id') id: string, @Param('action') action: string): Promise<ActionAnswer> {
      if (!['retry', 'cancel', 'remove'].includes(action)) throw new NotFoundException({ message: `Unknown action "${action}".` });
      return this.api.act(action, id, {});
    }
  }

  UseGuards(allowedHost, ...guards)(QueueDashboardController);
  return QueueDashboardController;
}

function asRecord(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
