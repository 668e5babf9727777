import { DiscoveryService } from '@nestjs/core';

/** A provider as `DiscoveryService` lists it (its wrapper type is not exported from a public path). */
export type InstanceWrapper = ReturnType<DiscoveryService['getProviders']>[number];

/**
 * The class behind a provider that `matches`, or undefined. A class provider names it as its metatype; a provider
 * made with `useFactory`, `useValue` or `useExisting` has a factory function or nothing there, so its instance's
 * class is read instead (Nest has created it by `onModuleInit`): decorated classes provided that way must not be
 * skipped silently. A request-scoped provider has no instance to read.
 */
export function providerClassOf(wrapper: InstanceWrapper, matches: (type: Function) => boolean = () => true): Function | undefined {
  const { metatype } = wrapper;
  const isClassProvider = typeof metatype === 'function' && metatype.prototype !== undefined && wrapper.inject === undefined;
  if (isClassProvider && matches(metatype)) return metatype;
  const instance: unknown = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
  if (typeof instance !== 'object' || instance === null) return undefined;
  const constructor = (instance as { constructor?: unknown }).constructor;
  return typeof constructor === 'function' && matches(constructor) ? constructor : undefined;
}
