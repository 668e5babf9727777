/** The key of the assembled storage's shared backend (see `storageBackendOf`). */
const STORAGE_BACKEND = Symbol('storage backend');

/**
 * The backend an assembled storage's roles share (the SQLite or PostgreSQL backend object, with its connection as
 * `db`), or undefined for any other object. Not part of `QueueStorage`: for the library's tools and the test suite.
 */
export function storageBackendOf(storage: object): unknown {
  return (storage as Record<symbol, unknown>)[STORAGE_BACKEND];
}

/**
 * One storage object out of a backend's role objects (one per role interface of lib/storage/roles/): every public
 * method of each part, bound to its part, and every getter, read from its part. A part's helpers are `#private`, off
 * the prototype, and its state is in its fields: neither is copied. Two parts with a member of the same name are a
 * mistake of the backend's wiring, refused at once. Each part is checked against its role by its own `implements`;
 * that the parts together make `T` is proven by the storage contract, which calls every member of every role.
 */
export function assembleStorage<T>(backend: object, ...parts: object[]): T {
  const storage: Record<string | symbol, unknown> = {};
  // What the roles share, out of sight of the interface: for tools and tests that must reach the connection itself.
  Object.defineProperty(storage, STORAGE_BACKEND, { value: backend, enumerable: false });
  for (const part of parts) {
    const prototype = Object.getPrototypeOf(part) as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name === 'constructor') continue;
      if (name in storage) throw new Error(`assembleStorage: two parts define ${name}`);
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
      if (descriptor.get) {
        const get = descriptor.get;
        Object.defineProperty(storage, name, { get: () => get.call(part), enumerable: true });
      } else if (typeof descriptor.value === 'function') {
        storage[name] = (descriptor.value as (...args: unknown[]) => unknown).bind(part);
      }
    }
  }
  return storage as T;
}
