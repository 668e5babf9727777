import { BurstLogger } from '../lib/utils/burst-logger';

describe('BurstLogger', () => {
  it('logs the first event of a burst, counts the rest, and reports the count with the next burst', () => {
    let now = 0;
    const lines: string[] = [];
    const burst = new BurstLogger({ warn: (message) => lines.push(message) }, 1000, () => now);
    for (let i = 0; i < 16; i++) {
      burst.report(`connection error ${i}`);
      now += 100;
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^connection error 0;/);
    now += 5000;
    burst.report('connection error again');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^connection error again;.*15 like events of the previous burst were not logged/);
  });
});
