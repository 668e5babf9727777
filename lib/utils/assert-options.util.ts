import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { describeValue } from './validation.util';
import { isOptionsObject, unknownOptionProblem } from './option-keys.util';

/**
 * Refuses options of a `QueueAdmin` method that are not an object, or that carry a key outside `known` (the list of
 * `utils/option-keys.util.ts`), with `InvalidArgumentError` naming the key and the known key it resembles.
 * `undefined` passes: every options argument may be left out.
 */
export function assertAdminOptions(method: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (!isOptionsObject(options)) {
    throw new InvalidArgumentError(method, 'options', `must be an object { ${known.join(', ')} }, got ${describeValue(options)}`);
  }
  const problem = unknownOptionProblem(options, known);
  if (problem) throw new InvalidArgumentError(method, `option "${problem.key}"`, problem.reason);
}
