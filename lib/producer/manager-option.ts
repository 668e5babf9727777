import type { EntityManager } from 'typeorm';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobOptions } from '../interfaces/job-options.interface';

/**
 * The one transaction named by the jobs' options (`manager`), if any; items naming different ones are refused.
 * @throws InvalidJobOptionsError: a `manager` that is not an object, items naming different ones, or some naming none.
 */
export function managerOf(queue: string, options: (JobOptions | undefined)[]): EntityManager | undefined {
  let manager: EntityManager | undefined;
  options.forEach((option, index) => {
    const candidate = option && typeof option === 'object' ? option.manager : undefined;
    if (candidate === undefined) return;
    if (typeof candidate !== 'object' || candidate === null) {
      throw new InvalidJobOptionsError(
        queue,
        options.length > 1 ? `items[${index}].manager` : 'manager',
        'must be a TypeORM EntityManager',
      );
    }
    if (manager !== undefined && candidate !== manager) {
      throw new InvalidJobOptionsError(queue, `items[${index}].manager`, "differs from an earlier item's: one addBulk is one transaction");
    }
    manager = candidate;
  });
  if (manager !== undefined && options.some((option) => !option || option.manager === undefined)) {
    const index = options.findIndex((option) => !option || option.manager === undefined);
    throw new InvalidJobOptionsError(
      queue,
      `items[${index}].manager`,
      'is missing while other items name one: one addBulk is one transaction',
    );
  }
  return manager;
}
