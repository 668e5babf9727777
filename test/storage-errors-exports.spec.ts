import * as library from '../lib';

describe('error classes the docs name are exported', () => {
  it.each(['LeaseExpiredError', 'InvalidStoredDataError', 'ShutdownAbortError'])('%s', (name) => {
    const exported = (library as Record<string, unknown>)[name] as (new (message: string) => Error) | undefined;
    expect(typeof exported).toBe('function');
    const error = new exported!('x');
    expect(error).toBeInstanceOf(library.SqliteQueueError);
    expect(error.name).toBe(name);
  });
});
