import { InvalidJobDataError, JobDataIssue } from '../errors/invalid-job-data.error';
import { PayloadSchema, PayloadSchemaIssue, PayloadSchemaResult } from '../interfaces/payload-schema.interface';
import { QueueDataSchema } from '../interfaces/payload-schema.interface';
import { dtoClassProblem, dtoPayloadSchema, isDtoClass } from './dto-schema.util';
import { describeValue } from './validation.util';

/**
 * Why a `schema` option cannot be used, or null. A Standard Schema may be a function (arktype's types are): what
 * counts is its `~standard` property. A class without one is a class-validator DTO, usable when the application has
 * class-validator and class-transformer.
 */
export function payloadSchemaProblem(value: unknown): string | null {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return `must be a Standard Schema object (zod, valibot, arktype...) or a class-validator DTO class, got ${describeValue(value)}`;
  }
  if (isDtoClass(value)) return dtoClassProblem();
  const standard = (value as { '~standard'?: unknown })['~standard'];
  if (typeof standard !== 'object' || standard === null) {
    return 'must be a Standard Schema object (zod 3.24+, valibot 1+, arktype...) or a class-validator DTO class: it has no "~standard" property';
  }
  const { version, validate } = standard as { version?: unknown; validate?: unknown };
  if (version !== 1) return `is a Standard Schema of version ${describeValue(version)}; only version 1 is supported`;
  if (typeof validate !== 'function') return 'has a "~standard" property without a validate function';
  return null;
}

/** A `schema` option as the library runs it: a DTO class made into its Standard Schema. Check `payloadSchemaProblem` first. */
export function toPayloadSchema(schema: QueueDataSchema): PayloadSchema {
  return isDtoClass(schema) ? dtoPayloadSchema(schema) : (schema as PayloadSchema);
}

/** A schema's result, or a promise of it. */
export type PayloadCheck = PayloadSchemaResult<unknown> | Promise<PayloadSchemaResult<unknown>>;

/** Runs a schema on a value. A validate that throws (or rejects) is reported as an issue of the value's root, not as a crash. */
export function runPayloadSchema(schema: PayloadSchema, value: unknown): PayloadCheck {
  try {
    const check = schema['~standard'].validate(value);
    return isPendingCheck(check) ? check.then(undefined, thrownIssue) : check;
  } catch (error) {
    return thrownIssue(error);
  }
}

function thrownIssue(error: unknown): PayloadSchemaResult<unknown> {
  return { issues: [{ message: `the schema's validate threw: ${error instanceof Error ? error.message : String(error)}` }] };
}

/** Whether a schema answered with a promise (an asynchronous check). */
export function isPendingCheck(check: PayloadCheck): check is Promise<PayloadSchemaResult<unknown>> {
  return typeof (check as { then?: unknown }).then === 'function';
}

/**
 * The value a schema let through, or `InvalidJobDataError` naming its first issue's path (from `root`, e.g.
 * `items[2].data`) and message, with every issue on `issues`.
 */
export function checkedPayload(queue: string, result: PayloadSchemaResult<unknown>, root = 'data'): unknown {
  const issues = issuesOf(result);
  if (issues === undefined) return (result as { value: unknown }).value;
  const listed: JobDataIssue[] = (issues.length > 0 ? issues : [{ message: 'the schema refused it without saying why' }]).map((issue) => ({
    path: issuePath(issue, root),
    message: messageOf(issue),
  }));
  throw new InvalidJobDataError(queue, listed[0].path, listed[0].message, listed);
}

/** Where a stored job's data fails its queue's schema, as one line for the job's error and the log. */
export function describeIssues(result: PayloadSchemaResult<unknown>, root = 'data'): string | null {
  const issues = issuesOf(result);
  if (issues === undefined) return null;
  if (issues.length === 0) return `${root}: the schema refused it without saying why`;
  // A job's error is stored and shown: a schema that reports hundreds of issues gives the first few.
  const shown = issues.slice(0, MAX_DESCRIBED_ISSUES).map((issue) => `${issuePath(issue, root)}: ${messageOf(issue)}`);
  if (issues.length > MAX_DESCRIBED_ISSUES) shown.push(`and ${issues.length - MAX_DESCRIBED_ISSUES} more`);
  return shown.join('; ');
}

/** How many issues a stored job's error lists. */
const MAX_DESCRIBED_ISSUES = 10;

/** An issue's message, whatever a faulty schema put there. */
function messageOf(issue: PayloadSchemaIssue): string {
  return String((issue as PayloadSchemaIssue | null)?.message ?? 'refused');
}

/** A result's issues; a validate that answers something else than `{ value }` or `{ issues }` is one issue itself. */
function issuesOf(result: unknown): ReadonlyArray<PayloadSchemaIssue> | undefined {
  if (typeof result !== 'object' || result === null) {
    return [{ message: `the schema's validate returned ${describeValue(result)}, not { value } or { issues }` }];
  }
  const { issues } = result as { issues?: ReadonlyArray<PayloadSchemaIssue> | null };
  if (issues === undefined || issues === null) return undefined;
  return Array.isArray(issues) ? issues : [{ message: `the schema's validate returned issues that are not an array` }];
}

/** An issue's path written as the JSON checks write theirs: `data.items[2].price`, `data["a b"]`. */
function issuePath(issue: PayloadSchemaIssue, root: string): string {
  let path = root;
  const given: unknown = (issue as PayloadSchemaIssue | null)?.path;
  const segments = Array.isArray(given) ? (given as ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>) : [];
  for (const segment of segments) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') path += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) path += `.${key}`;
    else path += `[${typeof key === 'string' ? JSON.stringify(key) : String(key)}]`;
  }
  return path;
}

/**
 * A schedule's options with its data as the queue's schema outputs it (each run stores that data); as given when the
 * queue has no schema. Rejects with `InvalidJobDataError`.
 */
export async function checkScheduleData<T extends { data?: unknown }>(
  schema: PayloadSchema | undefined,
  queue: string,
  options: T,
): Promise<T> {
  if (schema === undefined || typeof options !== 'object' || options === null) return options;
  // An absent `data` is stored as `{}`: that is what each run would carry, so that is what is checked.
  const result = await runPayloadSchema(schema, options.data === undefined ? {} : options.data);
  return { ...options, data: checkedPayload(queue, result) };
}
