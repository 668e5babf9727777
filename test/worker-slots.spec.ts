import { WorkerSlots } from '../lib/worker/worker-slots';

/** What the poller and the worker have done to the slots so far: the jobs started, and whether each one's write is queued. */
type Started = { writeQueued: boolean }[];

/**
 * Drives `slots` through `steps` seeded random moves, as the poller and the worker make them: routing at most what
 * is offered, queueing a running job's write (which, with a prefetch, may start a waiting job), settling a job (more
 * often one whose write is queued). `check` runs after every move. The same sequence every run.
 */
function randomWalk(slots: WorkerSlots<number>, seed: number, steps: number, check: (started: Started) => void): void {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const started: Started = [];
  let next = 0;
  for (let step = 0; step < steps; step++) {
    const roll = random();
    if (roll < 0.4) {
      const offered = slots.freeSlots;
      for (let i = 0; i < offered; i++) if (slots.admit(next++)) started.push({ writeQueued: false });
    } else if (roll < 0.7) {
      const unwritten = started.find((job) => !job.writeQueued);
      if (unwritten) {
        unwritten.writeQueued = true;
        if (slots.writeQueued() !== undefined) started.push({ writeQueued: false });
      }
    } else if (started.length > 0) {
      const index = started.findIndex((job) => job.writeQueued === random() < 0.8);
      const [settled] = started.splice(index < 0 ? 0 : index, 1);
      if (slots.release(settled.writeQueued) !== undefined) started.push({ writeQueued: false });
    }
    check(started);
  }
}

describe('WorkerSlots (unit): at most `concurrency` started, slots offered once their write is queued', () => {
  it('starts jobs up to the concurrency, then makes the rest wait', () => {
    const slots = new WorkerSlots<string>(2);
    expect(slots.freeSlots).toBe(2);
    expect(slots.admit('a')).toBe(true);
    expect(slots.admit('b')).toBe(true);
    expect(slots.freeSlots).toBe(0);
    expect(slots.admit('c')).toBe(false);
    expect(slots.waitingJobs).toEqual(['c']);
    expect(slots.idle).toBe(false);
  });

  it('offers a slot whose outcome is queued for writing, but gives it to a waiting job only once the write landed', () => {
    const slots = new WorkerSlots<string>(1);
    slots.admit('a');
    slots.writeQueued();
    // The poller may claim for it now: the claim queues behind the write.
    expect(slots.freeSlots).toBe(1);
    // The claim came back before the write landed: the job waits, and the slot is not offered twice.
    expect(slots.admit('b')).toBe(false);
    expect(slots.freeSlots).toBe(0);
    // The write landed: the waiting job takes the slot, counted as started.
    expect(slots.release(true)).toBe('b');
    expect(slots.freeSlots).toBe(0);
    expect(slots.waitingJobs).toEqual([]);
    expect(slots.release(false)).toBeUndefined();
    expect(slots.freeSlots).toBe(1);
    expect(slots.idle).toBe(true);
  });

  it('after stopAccepting offers nothing and starts nothing; the waiting jobs are taken for hand-back', () => {
    const slots = new WorkerSlots<string>(1);
    slots.admit('a');
    slots.writeQueued();
    slots.admit('b');
    slots.stopAccepting();
    expect(slots.freeSlots).toBe(0);
    expect(slots.admit('c')).toBe(false);
    expect(slots.takeWaiting()).toEqual(['b', 'c']);
    expect(slots.release(true)).toBeUndefined();
    expect(slots.idle).toBe(true);
    expect(slots.freeSlots).toBe(0);
  });

  it('removes one waiting job (an operator cancelled it) and leaves the others', () => {
    const slots = new WorkerSlots<string>(1);
    ['a', 'b', 'c'].forEach((job) => slots.admit(job));
    expect(slots.removeWaiting((job) => job === 'b')).toBe('b');
    expect(slots.removeWaiting((job) => job === 'b')).toBeUndefined();
    expect(slots.waitingJobs).toEqual(['c']);
  });

  it('keeps its invariant over any sequence of routing, queued writes and settles', () => {
    for (const concurrency of [1, 2, 5]) {
      const slots = new WorkerSlots<number>(concurrency);
      randomWalk(slots, 42, 2000, (started) => {
        const writing = started.filter((job) => job.writeQueued).length;
        expect(started.length).toBeLessThanOrEqual(concurrency);
        // What is offered plus what is held never exceeds the concurrency once queued writes land.
        expect(slots.freeSlots + started.length - writing + slots.waitingJobs.length).toBeLessThanOrEqual(concurrency);
        // A slot is never left empty while a job waits for it.
        if (slots.waitingJobs.length > 0) expect(started.length).toBe(concurrency);
        expect(slots.idle).toBe(started.length === 0);
      });
    }
  });

  describe('with a prefetch', () => {
    it('offers the prefetch beyond the free slots, and keeps what it claimed ahead waiting', () => {
      const slots = new WorkerSlots<string>(1, 2);
      expect(slots.freeSlots).toBe(3);
      expect(slots.admit('a')).toBe(true);
      expect(slots.admit('b')).toBe(false);
      expect(slots.admit('c')).toBe(false);
      expect(slots.freeSlots).toBe(0);
      expect(slots.waitingJobs).toEqual(['b', 'c']);
    });

    it("starts a slot's next job as soon as its outcome is queued for writing, not once it landed", () => {
      const slots = new WorkerSlots<string>(1, 1);
      slots.admit('a');
      slots.admit('b');
      expect(slots.writeQueued()).toBe('b');
      // One handler runs (b), one outcome is in writing (a): the prefetch is offered again.
      expect(slots.freeSlots).toBe(1);
      expect(slots.release(true)).toBeUndefined();
      expect(slots.freeSlots).toBe(1);
      expect(slots.idle).toBe(false);
      expect(slots.release(false)).toBeUndefined();
      expect(slots.idle).toBe(true);
    });

    it('bounds the jobs started (running, or their outcome in writing) by twice the concurrency plus the prefetch', () => {
      const slots = new WorkerSlots<string>(1, 1);
      slots.admit('a');
      expect(slots.admit('b')).toBe(false);
      expect(slots.writeQueued()).toBe('b'); // a in writing, b running
      expect(slots.admit('c')).toBe(false);
      expect(slots.writeQueued()).toBe('c'); // a and b in writing, c running: 3 started, the most for 1 + 1
      expect(slots.admit('d')).toBe(false);
      // c's outcome is queued too while neither a's nor b's has landed: d would be a fourth job started.
      expect(slots.writeQueued()).toBeUndefined();
      expect(slots.release(true)).toBe('d'); // a landed: d takes the slot
      expect(slots.waitingJobs).toEqual([]);
    });

    it('after stopAccepting starts nothing, even when a write is queued', () => {
      const slots = new WorkerSlots<string>(1, 1);
      slots.admit('a');
      slots.admit('b');
      slots.stopAccepting();
      expect(slots.writeQueued()).toBeUndefined();
      expect(slots.takeWaiting()).toEqual(['b']);
      expect(slots.freeSlots).toBe(0);
    });

    it('keeps its bounds over any sequence of routing, queued writes and settles', () => {
      for (const [concurrency, prefetch] of [
        [1, 1],
        [2, 3],
        [5, 5],
      ]) {
        const slots = new WorkerSlots<number>(concurrency, prefetch);
        randomWalk(slots, 7, 3000, (started) => {
          const writing = started.filter((job) => job.writeQueued).length;
          const running = started.length - writing;
          expect(running).toBeLessThanOrEqual(concurrency);
          expect(started.length).toBeLessThanOrEqual(2 * concurrency + prefetch);
          // Claimed and not started: never more than the prefetch beyond the free slots.
          expect(slots.waitingJobs.length).toBeLessThanOrEqual(concurrency + prefetch);
          expect(slots.freeSlots + running + slots.waitingJobs.length).toBeLessThanOrEqual(concurrency + prefetch);
          // What the process holds in the database (started, waiting) plus its next claim, however slowly writes land.
          expect(slots.freeSlots + started.length + slots.waitingJobs.length).toBeLessThanOrEqual(2 * concurrency + prefetch);
          // A job never waits while it could start: a handler slot is free and fewer than `concurrency` outcomes wait.
          if (slots.waitingJobs.length > 0) expect(running === concurrency || started.length === 2 * concurrency + prefetch).toBe(true);
          expect(slots.idle).toBe(started.length === 0);
        });
      }
    });
  });

  describe("with prefetch 'auto'", () => {
    it('holds at most 3 × concurrency jobs when outcomes land slower than handlers end', () => {
      const slots = new WorkerSlots<string>(2, 'auto');
      slots.setLookahead(2);
      expect(slots.freeSlots).toBe(4);
      ['a', 'b', 'c', 'd'].forEach((job) => slots.admit(job)); // a, b run; c, d wait
      expect(slots.writeQueued()).toBe('c');
      expect(slots.writeQueued()).toBe('d'); // a, b in writing; c, d run
      expect(slots.freeSlots).toBe(2); // 4 held + 2: the bound
      ['e', 'f'].forEach((job) => slots.admit(job));
      expect(slots.writeQueued()).toBe('e');
      expect(slots.writeQueued()).toBe('f'); // a, b, c, d in writing (none landed), e, f run: 6 held
      // Each slot has two outcomes in writing: a claim now would hold an 8th and 7th job for a crash to recover.
      expect(slots.freeSlots).toBe(0);
      expect(slots.release(true)).toBeUndefined(); // a landed
      expect(slots.freeSlots).toBe(1);
    });

    it('looks ahead by up to twice the concurrency, within the 3 × concurrency held', () => {
      const slots = new WorkerSlots<string>(2, 'auto');
      slots.setLookahead(100);
      expect(slots.prefetch).toBe(4);
      // Nothing started: 2 free slots and 4 ahead, which is also all the process may hold.
      expect(slots.freeSlots).toBe(6);
      ['a', 'b', 'c', 'd', 'e', 'f'].forEach((job) => slots.admit(job)); // a, b run; c to f wait
      expect(slots.freeSlots).toBe(0);
      expect(slots.writeQueued()).toBe('c'); // a in writing, c runs
      // 6 held already (a in writing, b and c running, d to f waiting): the bound, whatever the lookahead.
      expect(slots.freeSlots).toBe(0);
      expect(slots.release(true)).toBeUndefined(); // a landed: both slots still run, 5 held
      expect(slots.freeSlots).toBe(1);
      slots.setLookahead(3.7);
      expect(slots.prefetch).toBe(3);
    });

    it('keeps its bounds over any sequence of routing, lookaheads, queued writes and settles', () => {
      for (const concurrency of [1, 2, 5]) {
        const slots = new WorkerSlots<number>(concurrency, 'auto');
        let seed = concurrency;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        randomWalk(slots, 11, 3000, (started) => {
          // The poller sets a lookahead before each claim: 0 to past its cap of twice the concurrency, sometimes
          // without hand-off (a limited queue).
          slots.setLookahead(Math.floor(random() * (2 * concurrency + 2)), random() < 0.9);
          const writing = started.filter((job) => job.writeQueued).length;
          expect(started.length - writing).toBeLessThanOrEqual(concurrency);
          expect(started.length).toBeLessThanOrEqual(3 * concurrency);
          expect(slots.freeSlots + started.length + slots.waitingJobs.length).toBeLessThanOrEqual(3 * concurrency);
          expect(slots.idle).toBe(started.length === 0);
        });
      }
    });
  });
});
