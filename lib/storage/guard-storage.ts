import { asStorageError } from '../errors/storage.error';

const guarded = new WeakMap<object, Map<string, object>>();

/**
 * The storage as a public service (`QueueAdmin`, the schedule calls of `QueueProducer`) should call it: every
 * method's rejection becomes a `StorageError` naming the call (`QueueAdmin.cancel`), the library's own typed
 * errors pass unchanged. Not for the hot path (claims, completions, `add`), which handles its errors itself.
 */
export function guardStorage<TStorage extends object>(storage: TStorage, service: string): TStorage {
  let byService = guarded.get(storage);
  if (!byService) guarded.set(storage, (byService = new Map()));
  let proxy = byService.get(service) as TStorage | undefined;
  if (!proxy) {
    proxy = new Proxy(storage, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const wrap = (error: unknown) => asStorageError(error, `${service}.${String(property)}`, subjectOf(args[0]));
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            throw wrap(error);
          }
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(wrap(error))) : result;
        };
      },
    });
    byService.set(service, proxy);
  }
  return proxy;
}

/** The job id or queue name a storage call was about (its first argument), for the message. */
function subjectOf(first: unknown): string | undefined {
  return typeof first === 'string' && first.length <= 200 ? JSON.stringify(first) : undefined;
}
