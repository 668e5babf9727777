import { SlotWaitEstimate } from '../lib/poller/slot-wait-estimate';

describe('SlotWaitEstimate (unit): the wait a freed slot plans for', () => {
  it('plans for nothing before the first round, then for the first wait and half of it again twice over', () => {
    const wait = new SlotWaitEstimate();
    expect(wait.plannedMs).toBe(0);
    wait.record(2);
    // mean 2, deviation 1: 2 + 4 × 1.
    expect(wait.plannedMs).toBeCloseTo(6);
  });

  it('comes down to the mean when every wait is the same', () => {
    const wait = new SlotWaitEstimate();
    for (let round = 0; round < 200; round++) wait.record(1.5);
    expect(wait.plannedMs).toBeCloseTo(1.5, 3);
  });

  it('plans for the tail of waits that now and then run long, far beyond their mean', () => {
    const wait = new SlotWaitEstimate();
    // Nine waits of 1 ms for one of 12 ms, over and over: the mean is 2.1 ms.
    for (let round = 0; round < 400; round++) wait.record(round % 10 === 9 ? 12 : 1);
    // Read after a run of short waits, the plan still covers more than twice the mean.
    for (let round = 0; round < 3; round++) wait.record(1);
    expect(wait.plannedMs).toBeGreaterThan(2 * 2.1);
    // And it is bounded: a steady 1 ms afterwards brings it back down.
    for (let round = 0; round < 100; round++) wait.record(1);
    expect(wait.plannedMs).toBeLessThan(1.1);
  });

  it('measures the deviation from the mean before the new wait moves it', () => {
    const wait = new SlotWaitEstimate();
    wait.record(2); // mean 2, deviation 1
    wait.record(10); // deviation 1 + (|10 - 2| - 1) / 4 = 2.75; mean 2 + 8 / 8 = 3
    expect(wait.plannedMs).toBeCloseTo(3 + 4 * 2.75);
  });

  it('takes a first wait of 0 ms as a wait: the next one moves the estimate instead of starting it again', () => {
    const wait = new SlotWaitEstimate();
    wait.record(0); // mean 0, deviation 0
    wait.record(4); // deviation 0 + (|4 - 0| - 0) / 4 = 1; mean 0 + 4 / 8 = 0.5
    expect(wait.plannedMs).toBeCloseTo(0.5 + 4 * 1);
  });
});
