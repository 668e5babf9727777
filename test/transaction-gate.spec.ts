import { TransactionGate } from '../lib/storage/transactions/sqlite-transaction-gate';
import { StatementRunner } from '../lib/storage/shared/statement-runner';
import { deferred } from './support/wait-for';

/** A runner whose statements finish when the test says so, recording what was sent when. */
function heldRunner() {
  const sent: string[] = [];
  const pending: (() => void)[] = [];
  const runner: StatementRunner = {
    all: (sql) => {
      sent.push(sql);
      return new Promise((resolve) => pending.push(() => resolve([])));
    },
    run: (sql) => {
      sent.push(sql);
      return new Promise((resolve) => pending.push(() => resolve(1)));
    },
  };
  return { runner, sent, finishAll: () => pending.splice(0).forEach((finish) => finish()) };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TransactionGate', () => {
  it('lets statements through while open', async () => {
    const inner = heldRunner();
    const gate = new TransactionGate(inner.runner);
    const done = gate.all('claim', []);
    expect(inner.sent).toEqual(['claim']);
    inner.finishAll();
    await expect(done).resolves.toEqual([]);
  });

  it('closes only once the statements in flight have finished, then holds new ones until it opens', async () => {
    const inner = heldRunner();
    const gate = new TransactionGate(inner.runner);
    const inFlight = gate.run('complete', []);
    let closed = false;
    const closing = gate.close().then(() => (closed = true));
    await turn();
    expect(closed).toBe(false);
    inner.finishAll();
    await inFlight;
    await closing;
    expect(closed).toBe(true);

    const held = gate.all('claim', []);
    await turn();
    expect(inner.sent).toEqual(['complete']);
    gate.open();
    await turn();
    expect(inner.sent).toEqual(['complete', 'claim']);
    inner.finishAll();
    await expect(held).resolves.toEqual([]);
  });

  it('a statement held across two transactions in a row waits for the second too', async () => {
    const inner = heldRunner();
    const gate = new TransactionGate(inner.runner);
    await gate.close();
    const held = gate.all('claim', []);
    const reopened = deferred();
    gate.open();
    // Closed again before the held statement's turn came.
    void gate.close().then(reopened.resolve);
    await reopened.promise;
    await turn();
    expect(inner.sent).toEqual([]);
    gate.open();
    await turn();
    expect(inner.sent).toEqual(['claim']);
    inner.finishAll();
    await held;
  });

  it("while closed, lets an application's call through when it was made inside the transaction, and holds it otherwise", async () => {
    const inner = heldRunner();
    let inside = false;
    const gate = new TransactionGate(inner.runner, () => inside);
    await gate.close();
    const beside = gate.callers.run('add beside', []);
    const background = gate.all('claim', []);
    inside = true;
    const fromInside = gate.callers.all('add inside', []);
    // The module's own statements never join the transaction, whatever the context.
    const backgroundInside = gate.run('complete', []);
    await turn();
    expect(inner.sent).toEqual(['add inside']);
    inner.finishAll();
    await expect(fromInside).resolves.toEqual([]);
    inside = false;
    gate.open();
    await turn();
    expect(inner.sent).toEqual(['add inside', 'add beside', 'claim', 'complete']);
    inner.finishAll();
    await Promise.all([beside, background, backgroundInside]);
  });
});
