import { Observable, Subject } from 'rxjs';

/** A notification as node-postgres delivers it. */
export interface PgNotification {
  channel: string;
  payload?: string;
}

/** The slice of a node-postgres `Client` the listener uses (pg is an optional peer: no import of its types). */
export interface PgListenClient {
  connect(): Promise<unknown>;
  query(statement: string): Promise<unknown>;
  end(): Promise<void>;
  /** Lets the process exit while the connection is open (node-postgres clients have it). */
  unref?(): void;
  /** Undoes `unref` (node-postgres clients have it). */
  ref?(): void;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  removeAllListeners(): unknown;
}

/** Where the listener reports connection trouble. */
export interface ListenerLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** Reconnect back-off of the listener, in ms. */
export interface ListenerBackoff {
  /** First delay after the connection drops. */
  initialDelay: number;
  /** Delays double up to this. */
  maxDelay: number;
}

const DEFAULT_BACKOFF: ListenerBackoff = { initialDelay: 100, maxDelay: 10_000 };

/**
 * Holds one dedicated connection that LISTENs on the queue's channel and turns each notification into an
 * insert hint. Hints are only an optimisation (the poller's fallback tick finds everything anyway), so a lost
 * connection is never an error for the caller: it is re-established with a capped exponential back-off, and
 * the first hint after a reconnect is emitted at once, because notifications sent while we were away are gone
 * and a claim right now catches up on them.
 */
export class PostgresNotificationListener {
  private readonly hints = new Subject<void>();
  private readonly others = new Subject<PgNotification>();
  private client?: PgListenClient;
  private reconnectTimer?: NodeJS.Timeout;
  private failures = 0;
  private closed = false;
  private up = false;
  private connecting: Promise<void> = Promise.resolve();
  /** Settles the connect attempt in progress, for close(): see connect(). */
  private abandonAttempt?: () => void;

  /** One value per notification, and one after every reconnect. Completes on `close()`. */
  readonly hints$: Observable<void> = this.hints.asObservable();

  /**
   * Notifications of the `extraChannels` (the same connection LISTENs to them too: one LISTEN connection per process
   * whatever it listens for). After a reconnect, one message per extra channel WITHOUT payload: anything may have
   * happened meanwhile. Completes on `close()`.
   */
  readonly notifications$: Observable<PgNotification> = this.others.asObservable();

  constructor(
    private readonly createClient: () => PgListenClient,
    private readonly channel: string,
    private readonly listenStatement: string,
    private readonly logger: ListenerLogger,
    private readonly backoff: ListenerBackoff = DEFAULT_BACKOFF,
    private readonly extraChannels: readonly string[] = [],
  ) {}

  /** True while a LISTEN connection is up. */
  get listening(): boolean {
    return this.up;
  }

  /** Connects and LISTENs. Never rejects: a failure is logged and retried in the background. */
  start(): Promise<void> {
    this.connecting = this.connect();
    return this.connecting;
  }

  /** Ends the connection and any pending reconnect; leaves no timer or socket behind. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.up = false;
    // Ending the client closes its socket, also when it is still connecting; that connect attempt is then settled
    // here (pg never settles it), and waited for, so nothing of it outlives us.
    if (client) await endQuietly(client);
    this.abandonAttempt?.();
    await this.connecting;
    this.hints.complete();
    this.others.complete();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: PgListenClient;
    try {
      client = this.createClient();
    } catch (error) {
      // A configuration problem that retrying cannot fix: run on the fallback poll alone.
      this.logger.warn(`Cannot open a LISTEN connection (${String(error)}); relying on the fallback poll`);
      return;
    }
    const reconnecting = this.failures > 0;
    this.client = client;
    // pg emits 'error' on an idle client whose server went away; without a listener that would crash the process.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the connection ended')));
    client.on('notification', (message) => {
      if (this.closed) return;
      if (message.channel === this.channel) this.hints.next();
      else if (this.extraChannels.includes(message.channel)) this.others.next(message);
    });
    // node-postgres never settles connect() of a client ended while it connects (its 'end' handler reports nothing
    // once end() was called), and close() ends it: close() settles the attempt through `abandoned` instead, or it
    // would wait for it forever (a reconnect in progress at shutdown hung app.close()).
    let abandon!: () => void;
    const abandoned = new Promise<void>((resolve) => (abandon = resolve));
    this.abandonAttempt = abandon;
    const attempt = (async () => {
      await client.connect();
      await client.query(this.listenStatement);
    })();
    // Once abandoned, nobody awaits the attempt: a late rejection of it is no one's to handle.
    attempt.catch(() => undefined);
    try {
      await Promise.race([attempt, abandoned]);
    } catch (error) {
      this.lost(client, error);
      return;
    } finally {
      if (this.abandonAttempt === abandon) this.abandonAttempt = undefined;
    }
    if (this.closed || client !== this.client) return;
    // Like a SQLite handle, the idle LISTEN socket alone does not keep the process alive: a processing app is kept
    // alive by its poller's timer, and an app that was never closed (say, its init failed) can still exit. Only
    // once connected: while connecting, the socket is the one thing an awaiting boot is waiting for.
    client.unref?.();
    this.up = true;
    if (reconnecting) {
      this.logger.log(`LISTEN connection re-established after ${this.failures} failed attempt(s); claiming to catch up`);
      this.failures = 0;
      this.hints.next();
      for (const channel of this.extraChannels) this.others.next({ channel });
    }
  }

  /** The connection of `client` is gone (or never came up): drop it and schedule the next attempt. */
  private lost(client: PgListenClient, error: unknown): void {
    if (client !== this.client || this.closed) return;
    this.client = undefined;
    this.up = false;
    void endQuietly(client);
    this.failures++;
    const base = Math.min(this.backoff.maxDelay, this.backoff.initialDelay * 2 ** Math.min(this.failures - 1, 20));
    // Jitter: after a database restart, many processes should not all reconnect in the same millisecond.
    const delay = Math.round(base / 2 + (Math.random() * base) / 2);
    const reason = error instanceof Error ? error.message : String(error);
    // Once per outage: the attempts that follow fail alike, and the reconnect is logged when it succeeds.
    if (this.failures === 1) {
      this.logger.warn(
        `LISTEN connection lost (${reason}); reconnecting with a back-off of up to ${this.backoff.maxDelay} ms, ` +
          'logged again once it is back. Meanwhile jobs from other processes are found by the fallback poll.',
      );
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connecting = this.connect();
    }, delay);
    // A retry schedule is no reason to keep the process alive either.
    this.reconnectTimer.unref();
  }
}

/** Ends a client, ignoring its late errors: it is being thrown away. */
async function endQuietly(client: PgListenClient): Promise<void> {
  client.removeAllListeners();
  client.on('error', () => undefined);
  // The connection was unref'd so it never keeps the process alive; while we wait for it to end it must, or
  // Node exits in the middle of `await app.close()`.
  client.ref?.();
  await client.end().catch(() => undefined);
}
