/** Unit tests of lib/utils/error.util.ts: whatever a handler throws becomes a stored error, and nothing throws. */
import { JobTimeoutError } from '../lib';
import { MAX_ERROR_TEXT_LENGTH, serializeJobError, toJobError } from '../lib/utils/error.util';

function throwing(): never {
  throw new Error('trap');
}

describe('toJobError', () => {
  it('keeps name, message, stack and an own code of an Error', () => {
    const error = Object.assign(new TypeError('bad input'), { code: 'E_BAD' });
    expect(toJobError(error, 2)).toEqual({ name: 'TypeError', message: 'bad input', stack: error.stack, code: 'E_BAD', attempt: 2 });
    expect(toJobError(new JobTimeoutError('7', 50), 1)).toMatchObject({ name: 'JobTimeoutError', message: 'Job 7 timed out after 50 ms' });
  });

  it('keeps the fields of an error-like plain object instead of "[object Object]"', () => {
    expect(toJobError({ name: 'HttpError', message: 'upstream said 503', code: 503 }, 1)).toEqual({
      name: 'HttpError',
      message: 'upstream said 503',
      code: 503,
      attempt: 1,
    });
    expect(toJobError({ message: 'no name' }, 1)).toEqual({ name: 'NonErrorThrown', message: 'no name', attempt: 1 });
  });

  it.each<[string, () => unknown]>([
    [
      'a null-prototype object with a cycle',
      () => {
        const value = Object.create(null) as Record<string, unknown>;
        value.self = value;
        return value;
      },
    ],
    [
      'a cycle with a message',
      () => {
        const value: Record<string, unknown> = { message: 'cyclic' };
        value.self = value;
        return value;
      },
    ],
    ['a Symbol', () => Symbol('boom')],
    ['a BigInt', () => 10n],
    ['undefined', () => undefined],
    ['null', () => null],
    ['an object whose toJSON and toString throw', () => ({ toJSON: throwing, toString: throwing })],
    ['an Error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', { get: throwing })],
    ['an Error whose name getter throws', () => Object.defineProperty(new Error('x'), 'name', { get: throwing })],
    ['a Proxy whose every trap throws', () => new Proxy({}, { get: throwing, getPrototypeOf: throwing, ownKeys: throwing, has: throwing })],
    ['an Error with a non-string message', () => Object.assign(new Error(), { message: { nested: 10n } })],
  ])('never throws on %s, and returns strings', (_case, make) => {
    const thrown = make();
    const error = toJobError(thrown, 3);
    expect(typeof error.name).toBe('string');
    expect(typeof error.message).toBe('string');
    expect(error.attempt).toBe(3);
    expect(() => serializeJobError(error)).not.toThrow();
    expect(JSON.parse(serializeJobError(error))).toMatchObject({ name: error.name, message: error.message, attempt: 3 });
  });

  it('describes non-error values readably', () => {
    expect(toJobError('plain string', 1).message).toBe('plain string');
    expect(toJobError(42, 1).message).toBe('42');
    expect(toJobError(10n, 1).message).toBe('10');
    expect(toJobError(Symbol('boom'), 1).message).toBe('Symbol(boom)');
    expect(toJobError({ reason: 'quota' }, 1)).toEqual({ name: 'NonErrorThrown', message: '{"reason":"quota"}', attempt: 1 });
  });

  it(`bounds a huge message and stack to ${MAX_ERROR_TEXT_LENGTH} characters, saying how much was cut`, () => {
    const huge = 'x'.repeat(5_000_000);
    const error = toJobError(Object.assign(new Error(huge), { stack: huge }), 1);
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT_LENGTH + 100);
    expect(error.message).toMatch(/… \(4991808 more characters\)$/);
    expect(error.stack!.length).toBeLessThan(MAX_ERROR_TEXT_LENGTH + 100);
    expect(toJobError(huge, 1).message.length).toBeLessThan(MAX_ERROR_TEXT_LENGTH + 100);
  });

  it('ignores an inherited or non-primitive code', () => {
    const inherited = Object.create({ code: 'FROM_PROTO' }, { message: { value: 'm', enumerable: true } }) as object;
    expect(toJobError(inherited, 1)).not.toHaveProperty('code');
    expect(toJobError(Object.assign(new Error('m'), { code: { deep: true } }), 1)).not.toHaveProperty('code');
  });
});
