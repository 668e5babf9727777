import { MAX_EARLIER_ERRORS, serializeJobError, withEarlierErrors } from '../lib/utils/error.util';

describe("withEarlierErrors (every attempt's error on the job)", () => {
  it('chains the stored error in front of its own earlier ones, bounded in count and stack length', () => {
    let stored: string | null = null;
    for (let attempt = 1; attempt <= 15; attempt++) {
      stored = serializeJobError(
        withEarlierErrors({ name: 'Error', message: `failure ${attempt}`, stack: 'x'.repeat(5000), attempt }, stored),
      );
    }
    const last = JSON.parse(stored!);
    expect(last).toMatchObject({ message: 'failure 15', attempt: 15 });
    expect(last.stack).toHaveLength(5000);
    expect(last.previous.map((e: { attempt: number }) => e.attempt)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6]);
    expect(last.previous).toHaveLength(MAX_EARLIER_ERRORS);
    expect(last.previous.every((e: { stack: string; previous?: unknown }) => e.stack.length === 2048 && e.previous === undefined)).toBe(
      true,
    );
  });

  it('starts a history from nothing, and from a stored error written by other tools', () => {
    const error = { name: 'Error', message: 'now', attempt: 2 };
    expect(withEarlierErrors(error, null)).toEqual(error);
    expect(withEarlierErrors(error, 'not json').previous).toEqual([{ name: 'Error', message: 'not json', attempt: 0 }]);
    expect(withEarlierErrors(error, '42')).toEqual(error);
  });
});
