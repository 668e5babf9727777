/**
 * How a rejected value is named in the message of a typed error: short, never the value dumped, with the right
 * article ("an array", "an object", "a Map", "a function").
 */
import { describeValue } from '../lib/utils/validation.util';

describe('describeValue', () => {
  it.each<[unknown, string]>([
    [5, '5'],
    [NaN, 'NaN'],
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'true'],
    ['five', '"five"'],
    ['x'.repeat(50), JSON.stringify(`${'x'.repeat(40)}…`)],
    [[1, 2], 'an array'],
    [{ a: 1 }, 'an object'],
    [Object.create(null), 'an object'],
    [new Map(), 'a Map'],
    [new Error('boom'), 'an Error'],
    [() => 1, 'a function'],
    [Symbol('s'), 'a symbol'],
    [10n, 'a bigint'],
    [new Date(NaN), 'an invalid Date'],
  ])('%p reads as %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});
