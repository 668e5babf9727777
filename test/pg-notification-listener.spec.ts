/**
 * The LISTEN connection of the PostgreSQL backend, against a fake node-postgres client: no server needed, so
 * this runs in both projects. The real thing (a server-side kill of the connection) is in
 * test/postgres-storage.e2e-spec.ts.
 */
import { EventEmitter } from 'node:events';
import {
  ListenerLogger,
  PgListenClient,
  PgNotification,
  PostgresNotificationListener,
} from '../lib/storage/postgres/postgres-notification-listener';
import { waitFor } from './support/wait-for';

class FakeClient extends EventEmitter implements PgListenClient {
  connected = false;
  connecting = false;
  ended = false;
  readonly statements: string[] = [];
  /** `stuck`: the connect is still under way when the test ends the client, and never settles then (as pg's). */
  constructor(private readonly connectAs: 'ok' | 'fail' | 'stuck') {
    super();
  }
  async connect(): Promise<void> {
    if (this.connectAs === 'fail') throw new Error('ECONNREFUSED');
    if (this.connectAs === 'stuck') {
      this.connecting = true;
      return new Promise<void>(() => undefined);
    }
    this.connected = true;
  }
  async query(statement: string): Promise<void> {
    this.statements.push(statement);
  }
  async end(): Promise<void> {
    this.ended = true;
  }
  notify(channel: string, payload?: string): void {
    this.emit('notification', { channel, payload } satisfies PgNotification);
  }
  /** What pg does when the server terminates an idle connection. */
  drop(): void {
    this.emit('error', new Error('terminating connection due to administrator command'));
    this.emit('end');
  }
}

const quietLogger: ListenerLogger = { log: () => undefined, warn: () => undefined };

describe('PostgresNotificationListener', () => {
  let clients: FakeClient[];
  let failNext: number;
  let stuckNext: number;
  let listener: PostgresNotificationListener;
  let hints: number;

  beforeEach(() => {
    clients = [];
    failNext = 0;
    stuckNext = 0;
    hints = 0;
    const create = () => {
      const client = new FakeClient(failNext > 0 ? 'fail' : stuckNext > 0 ? 'stuck' : 'ok');
      if (failNext > 0) failNext--;
      else if (stuckNext > 0) stuckNext--;
      clients.push(client);
      return client;
    };
    listener = new PostgresNotificationListener(create, 'nq_jobs_due', 'LISTEN "nq_jobs_due"', quietLogger, {
      initialDelay: 5,
      maxDelay: 20,
    });
    listener.hints$.subscribe(() => hints++);
  });
  afterEach(() => listener.close());

  it('LISTENs once connected and turns each notification of its channel, and only those, into a hint', async () => {
    await listener.start();
    expect(clients).toHaveLength(1);
    expect(clients[0].statements).toEqual(['LISTEN "nq_jobs_due"']);
    expect(listener.listening).toBe(true);
    expect(hints).toBe(0); // no catch-up hint on the first connection: the poller claims at start anyway
    clients[0].notify('nq_jobs_due');
    clients[0].notify('other_channel');
    clients[0].notify('nq_jobs_due');
    expect(hints).toBe(2);
  });

  it('re-establishes a dropped connection with back-off and emits exactly one catch-up hint after reconnecting', async () => {
    await listener.start();
    failNext = 2; // the server is still down for the next two attempts
    clients[0].drop();
    expect(listener.listening).toBe(false);
    expect(clients[0].ended).toBe(true);
    await waitFor(() => listener.listening, 'listening again');
    expect(clients).toHaveLength(4); // the dropped one, two failed attempts, the good one
    expect(clients[3].statements).toEqual(['LISTEN "nq_jobs_due"']);
    expect(hints).toBe(1);
    clients[3].notify('nq_jobs_due');
    expect(hints).toBe(2);
    // Late events of a discarded client change nothing.
    clients[0].emit('notification', { channel: 'nq_jobs_due' });
    clients[0].emit('error', new Error('late'));
    expect(hints).toBe(2);
    expect(clients).toHaveLength(4);
  });

  it('passes notifications of its extra channels on, with their payload, and one without payload per channel after a reconnect', async () => {
    const extra = new PostgresNotificationListener(
      () => {
        const client = new FakeClient('ok');
        clients.push(client);
        return client;
      },
      'nq_jobs_due',
      'LISTEN "nq_jobs_due"; LISTEN "nq_jobs_done"',
      quietLogger,
      { initialDelay: 5, maxDelay: 20 },
      ['nq_jobs_done', 'nq_events'],
    );
    const seen: PgNotification[] = [];
    let dueHints = 0;
    extra.notifications$.subscribe((message) => seen.push(message));
    extra.hints$.subscribe(() => dueHints++);
    try {
      await extra.start();
      const client = clients[clients.length - 1];
      client.notify('nq_jobs_done', '7,8');
      client.notify('nq_jobs_due');
      client.notify('unrelated', 'x');
      expect(seen).toEqual([{ channel: 'nq_jobs_done', payload: '7,8' }]);
      expect(dueHints).toBe(1);
      client.drop();
      await waitFor(() => extra.listening, 'listening again');
      expect(seen.slice(1)).toEqual([{ channel: 'nq_jobs_done' }, { channel: 'nq_events' }]);
    } finally {
      await extra.close();
    }
  });

  it('an outage is logged once when the connection is lost and once when it is back, however many attempts fail', async () => {
    const warned: string[] = [];
    const logged: string[] = [];
    let fail = 0;
    const counting = new PostgresNotificationListener(
      () => {
        const client = new FakeClient(fail > 0 ? 'fail' : 'ok');
        if (fail > 0) fail--;
        clients.push(client);
        return client;
      },
      'nq_jobs_due',
      'LISTEN "nq_jobs_due"',
      { log: (message) => logged.push(message), warn: (message) => warned.push(message) },
      { initialDelay: 1, maxDelay: 2 },
    );
    try {
      await counting.start();
      fail = 25;
      clients[clients.length - 1].drop();
      await waitFor(() => counting.listening, 'listening after 25 failed attempts');
      expect(warned).toHaveLength(1);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/re-established after 26 failed attempt/);
    } finally {
      await counting.close();
    }
  });

  it('waits initialDelay before the first reconnect, doubles up to maxDelay, and starts over at the next outage', async () => {
    // Fake timers and no jitter: each wait is the back-off itself, so the attempt comes exactly that late.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    jest.spyOn(Math, 'random').mockReturnValue(1);
    const warned: string[] = [];
    let fail = 0;
    const made: FakeClient[] = [];
    const timed = new PostgresNotificationListener(
      () => {
        const client = new FakeClient(fail > 0 ? 'fail' : 'ok');
        if (fail > 0) fail--;
        made.push(client);
        return client;
      },
      'nq_jobs_due',
      'LISTEN "nq_jobs_due"',
      { log: () => undefined, warn: (message) => warned.push(message) },
      { initialDelay: 100, maxDelay: 400 },
    );
    /** The next attempt comes `ms` after the last failure, not a millisecond sooner; then its outcome settles. */
    const nextAttemptAfter = async (ms: number) => {
      const before = made.length;
      await jest.advanceTimersByTimeAsync(ms - 1);
      expect(made).toHaveLength(before);
      await jest.advanceTimersByTimeAsync(1);
      expect(made).toHaveLength(before + 1);
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      await timed.start();
      fail = 3;
      made[0].drop();
      await nextAttemptAfter(100);
      await nextAttemptAfter(200);
      await nextAttemptAfter(400);
      await nextAttemptAfter(400); // capped at maxDelay; this one connects
      expect(timed.listening).toBe(true);
      expect(warned).toHaveLength(1);
      // A second outage is one of its own: it is logged, and its back-off starts from initialDelay again.
      made[made.length - 1].drop();
      expect(warned).toHaveLength(2);
      await nextAttemptAfter(100);
      expect(timed.listening).toBe(true);
    } finally {
      jest.useRealTimers();
      jest.restoreAllMocks();
      await timed.close();
    }
  });

  it('keeps retrying when the first connection fails, without rejecting start()', async () => {
    failNext = 1;
    await expect(listener.start()).resolves.toBeUndefined();
    expect(listener.listening).toBe(false);
    await waitFor(() => listener.listening, 'listening after a failed first attempt');
    expect(hints).toBe(1);
  });

  it('close() ends the connection, cancels a pending reconnect and completes the hints', async () => {
    await listener.start();
    failNext = 100;
    clients[0].drop();
    let completed = false;
    listener.hints$.subscribe({ complete: () => (completed = true) });
    await listener.close();
    const count = clients.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(clients.length).toBe(count); // no reconnect after close
    expect(clients.every((client) => client.ended || !client.connected)).toBe(true);
    expect(completed).toBe(true);
  });

  it('close() during a reconnect attempt returns, though ending the client leaves its connect unsettled (node-postgres does)', async () => {
    await listener.start();
    stuckNext = 1;
    clients[0].drop();
    await waitFor(() => clients[1]?.connecting === true, 'the reconnect attempt under way');
    let completed = false;
    listener.hints$.subscribe({ complete: () => (completed = true) });
    let closed = false;
    void listener.close().then(() => (closed = true));
    // Before, close() waited for that connect forever: an app shutting down during a reconnect never finished closing.
    await waitFor(() => closed, 'close() to return', 5000);
    expect(clients[1].ended).toBe(true);
    expect(completed).toBe(true);
    expect(listener.listening).toBe(false);
  });
});
