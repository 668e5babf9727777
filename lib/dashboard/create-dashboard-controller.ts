import {
  Body,
  CanActivate,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
  Type,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { DASHBOARD_ASSETS, DashboardAsset, IMMUTABLE, chooseEncoding } from './assets/dashboard-assets';
import { dashboardPage } from './assets/dashboard-page';
import { AllowedHostGuard } from './allowed-host.guard';
import { CompressJsonInterceptor } from './compress-json.interceptor';
import { ActionAnswer, DashboardApi } from './dashboard-api.service';
import { DashboardHeaders, SECURITY_HEADERS } from './dashboard-headers.decorator';
import { DashboardInspectApi } from './dashboard-inspect-api.service';
import { DashboardOperatorApi } from './dashboard-operator-api.service';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { SameOriginGuard } from './same-origin.guard';

/** The request fields the page route reads, on Express and Fastify alike. */
interface RequestLike {
  originalUrl?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
}

/** The reply calls an asset route makes, alike on Express (`res`) and Fastify (`reply`). */
interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): unknown;
  send(body: Buffer | string): unknown;
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
    constructor(
      private readonly api: DashboardApi,
      private readonly operator: DashboardOperatorApi,
      private readonly inspect: DashboardInspectApi,
    ) {}

    /** The page; its links and requests are absolute from the path it was reached at, so a global prefix is honoured. */
    @Get()
    @DashboardHeaders('text/html; charset=utf-8')
    page(@Req() request: RequestLike): string {
      const url = request.originalUrl ?? request.url ?? path;
      return dashboardPage(url.split('?')[0].replace(/\/+$/, ''), {
        script: DASHBOARD_ASSETS.script.file,
        style: DASHBOARD_ASSETS.style.file,
      });
    }

    /**
     * The script and stylesheet under names carrying their content's hash, cached for a year and compressed as the
     * browser accepts (br, gzip); any other name is 404. Sent by hand: a Buffer body and its encoding headers.
     */
    @Get('assets/:file')
    asset(@Param('file') file: string, @Req() request: RequestLike, @Res() reply: ReplyLike): void {
      const found: DashboardAsset | undefined = Object.values(DASHBOARD_ASSETS).find((one) => one.file === file);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
      if (!found) {
        reply.header('Cache-Control', 'no-store');
        reply.header('Content-Type', 'application/json; charset=utf-8');
        reply
          .status(404)
          .send(JSON.stringify({ statusCode: 404, message: `No asset ${file}: the page links its assets by content hash.` }));
        return;
      }
      const encoding = chooseEncoding(request.headers?.['accept-encoding']);
      reply.header('Content-Type', found.contentType);
      reply.header('Cache-Control', IMMUTABLE);
      reply.header('Vary', 'Accept-Encoding');
      if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
      reply.status(200).send(found[encoding]);
    }

    @Get('api/overview')
    @DashboardHeaders('application/json; charset=utf-8')
    overview() {
      return this.api.overview();
    }

    @Get('api/schedules')
    @DashboardHeaders('application/json; charset=utf-8')
    async schedules() {
      const data = await this.api.schedules();
      const lastRuns = await this.operator.lastRuns(data.schedules);
      return { ...data, schedules: data.schedules.map((schedule, i) => ({ ...schedule, lastRun: lastRuns[i] })) };
    }

    // Each route naming a queue, job or schedule also takes it in the query (`api/queue?queue=`), the form the page
    // uses: Fastify refuses a path parameter over its maxParamLength (100 by default, an option of the host's adapter)
    // before the dashboard sees it, where a queue name may be 128 characters. The path forms stay for callers of them.
    @Get(['api/queues/:queue', 'api/queue'])
    @DashboardHeaders('application/json; charset=utf-8')
    async queue(@Param('queue') inPath: string | undefined, @Query() query: Record<string, string | undefined>) {
      const queue = named(inPath, query.queue);
      const data = await this.api.queue(queue, query);
      const [deadLetterQueue, failureGroups] = await Promise.all([this.inspect.deadLetterQueue(queue), this.inspect.failureGroups(queue)]);
      return { ...data, deadLetterQueue, failureGroups };
    }

    @Get(['api/jobs/:id', 'api/job'])
    @DashboardHeaders('application/json; charset=utf-8')
    async job(@Param('id') inPath: string | undefined, @Query('id') inQuery: unknown) {
      const id = named(inPath, inQuery);
      const job = await this.api.job(id);
      if (!job) throw new NotFoundException({ message: `No job has id ${id}: it may have been removed.` });
      return { ...job, ...(await this.operator.jobExtras(job.job)) };
    }

    /** Why the job is where it is (QueueAdmin.explain): the job page's Explain panel. */
    @Get(['api/jobs/:id/explain', 'api/job/explain'])
    @DashboardHeaders('application/json; charset=utf-8')
    explain(@Param('id') inPath: string | undefined, @Query('id') inQuery: unknown) {
      return this.inspect.explain(named(inPath, inQuery));
    }

    @Get('api/processes')
    @DashboardHeaders('application/json; charset=utf-8')
    processes() {
      return this.operator.processes();
    }

    @Post(['api/queues/:queue/:action', 'api/queue/:action'])
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    queueAction(
      @Param('queue') inPath: string | undefined,
      @Query('queue') inQuery: unknown,
      @Param('action') action: string,
      @Body() body: unknown,
    ): Promise<ActionAnswer> {
      const queue = named(inPath, inQuery);
      if (action === 'redrive') return this.afterwards(this.inspect.redrive(queue));
      if (!['pause', 'resume', 'retry-failed', 'clean'].includes(action))
        throw new NotFoundException({ message: `Unknown action "${action}".` });
      return this.afterwards(this.api.act(action, queue, asRecord(body)));
    }

    @Post(['api/jobs/:id/:action', 'api/job/:action'])
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    jobAction(
      @Param('id') inPath: string | undefined,
      @Query('id') inQuery: unknown,
      @Param('action') action: string,
    ): Promise<ActionAnswer> {
      const id = named(inPath, inQuery);
      if (action === 'promote' || action === 'rerun') return this.afterwards(this.operator.jobAction(action, id));
      if (!['retry', 'cancel', 'remove'].includes(action)) throw new NotFoundException({ message: `Unknown action "${action}".` });
      return this.afterwards(this.api.act(action, id, {}));
    }

    /** Retry, cancel or remove a selection of jobs: `{ ids: [...] }`. */
    @Post('api/bulk/:action')
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    bulk(@Param('action') action: string, @Body() body: unknown): Promise<ActionAnswer> {
      return this.afterwards(this.operator.bulk(action, asRecord(body)));
    }

    /** Run now, pause, resume or delete a recurring job. */
    @Post(['api/schedules/:queue/:name/:action', 'api/schedule/:action'])
    @HttpCode(200)
    @UseGuards(sameOrigin)
    @DashboardHeaders('application/json; charset=utf-8')
    scheduleAction(
      @Param() inPath: Record<string, string | undefined>,
      @Query() query: Record<string, unknown>,
      @Param('action') action: string,
    ): Promise<ActionAnswer> {
      const queue = named(inPath.queue, query.queue);
      return this.afterwards(this.operator.scheduleAction(action, queue, named(inPath.name, query.name)));
    }

    /** The next read after an action shows what it did, not the counts kept from before it. */
    private afterwards<T>(action: Promise<T>): Promise<T> {
      return action.finally(() => {
        this.api.invalidate();
        this.inspect.invalidate();
      });
    }
  }

  UseGuards(allowedHost, ...guards)(QueueDashboardController);
  // The JSON answers go compressed when the browser accepts it, as the assets do (polls are most of the traffic).
  UseInterceptors(new CompressJsonInterceptor())(QueueDashboardController);
  return QueueDashboardController;
}

/**
 * The queue, job or schedule a route names: its path parameter, else its query parameter. Anything but one string
 * (missing, or repeated into an array) reads as '', which the services refuse as they refuse any invalid name.
 */
function named(inPath: string | undefined, inQuery: unknown): string {
  if (inPath !== undefined) return inPath;
  return typeof inQuery === 'string' ? inQuery : '';
}

function asRecord(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
