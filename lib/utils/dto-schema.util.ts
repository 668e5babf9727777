import { DtoClass, PayloadSchema, PayloadSchemaIssue, PayloadSchemaResult } from '../interfaces/payload-schema.interface';
import { describeValue } from './validation.util';

/** The slice of class-validator a DTO schema calls (an optional peer: none of its types are imported). */
interface ClassValidatorModule {
  validate(object: object, options?: object): Promise<ValidationErrorLike[]>;
}

/** The slice of class-transformer a DTO schema calls. */
interface ClassTransformerModule {
  plainToInstance(cls: DtoClass, plain: unknown): unknown;
  instanceToPlain(object: unknown): unknown;
}

/** One node of class-validator's error tree: a property, what it broke, and the errors of its nested values. */
interface ValidationErrorLike {
  property?: unknown;
  constraints?: Record<string, unknown>;
  children?: ValidationErrorLike[];
}

/** The two packages a DTO class needs, required on first use only; null: looked for and absent. */
let peers: { validator: ClassValidatorModule; transformer: ClassTransformerModule } | null | undefined;

const PEERS = ['class-validator', 'class-transformer'] as const;

/**
 * The application's class-validator and class-transformer, or null when either is not installed. Any other failure
 * to load them (a broken install) is thrown, not taken for absence.
 */
function loadPeers(): typeof peers {
  if (peers === undefined) {
    try {
      peers = {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        validator: require(PEERS[0]) as ClassValidatorModule,
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        transformer: require(PEERS[1]) as ClassTransformerModule,
      };
    } catch (error) {
      if (!isAbsent(error)) throw error;
      peers = null;
    }
  }
  return peers;
}

/** Whether `error` says one of the two packages itself cannot be found (not a file it requires in turn). */
function isAbsent(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && PEERS.some((name) => message.includes(`'${name}'`));
}

/** Whether a `schema` option is a class (a DTO) rather than a Standard Schema object. */
export function isDtoClass(value: unknown): value is DtoClass {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value)) && !('~standard' in value);
}

/** Why a DTO class cannot be used as a schema in this application, or null. */
export function dtoClassProblem(): string | null {
  return loadPeers() === null
    ? 'is a class: a class-validator DTO class needs the packages class-validator and class-transformer installed in the application (npm install class-validator class-transformer), or give a Standard Schema object (zod 3.24+, valibot 1+, arktype...)'
    : null;
}

/** One schema per DTO class, so `@Processor` and `registerQueue` naming the same class name the same schema. */
const schemas = new WeakMap<DtoClass, DtoPayloadSchema>();

/**
 * A Standard Schema made of a class-validator DTO class: an add's data is turned into an instance of the class
 * (class-transformer's `plainToInstance`, so `@Type` and `@Transform` apply), checked by class-validator's `validate`
 * (with `forbidUnknownValues`, as class-validator does by default), and stored as the instance's plain form
 * (`instanceToPlain`, dates as ISO strings). A processor checks the stored data the same way and its handler gets
 * the instance (see `toHandlerData`).
 */
export interface DtoPayloadSchema extends PayloadSchema {
  /** The DTO class the schema was made of. */
  readonly dtoClass: DtoClass;
}

/** The Standard Schema of a DTO class (the same object for the same class). Call only once `dtoClassProblem()` is null. */
export function dtoPayloadSchema(dtoClass: DtoClass): DtoPayloadSchema {
  let schema = schemas.get(dtoClass);
  if (schema === undefined) {
    const { validator, transformer } = loadPeers()!;
    schema = {
      dtoClass,
      '~standard': {
        version: 1,
        vendor: 'class-validator',
        validate: async (value: unknown): Promise<PayloadSchemaResult<unknown>> => {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            return { issues: [{ message: `must be an object to make a ${dtoClass.name}, got ${describeValue(value)}` }] };
          }
          const instance = value instanceof dtoClass ? value : (transformer.plainToInstance(dtoClass, value) as object);
          const errors = await validator.validate(instance, { forbidUnknownValues: true });
          if (errors.length > 0) return { issues: issuesOf(errors, []) };
          return { value: withIsoDates(transformer.instanceToPlain(instance)) };
        },
      },
    };
    schemas.set(dtoClass, schema);
  }
  return schema;
}

/** What a handler gets of checked, stored data: an instance of the DTO class for a DTO schema, else the data itself. */
export function toHandlerData(schema: PayloadSchema, data: unknown): unknown {
  const { dtoClass } = schema as Partial<DtoPayloadSchema>;
  return dtoClass === undefined ? data : loadPeers()!.transformer.plainToInstance(dtoClass, data);
}

/** class-validator's tree of errors as a flat list of issues, each with the path of keys down to its property. */
function issuesOf(errors: ValidationErrorLike[], parent: PropertyKey[]): PayloadSchemaIssue[] {
  const issues: PayloadSchemaIssue[] = [];
  for (const error of errors) {
    const property = error.property;
    // An array's items are named by their index, as a string.
    const key = typeof property === 'string' && /^\d+$/.test(property) ? Number(property) : property;
    const path = typeof key === 'string' || typeof key === 'number' ? [...parent, key] : parent;
    for (const message of Object.values(error.constraints ?? {})) issues.push({ message: String(message), path });
    if (Array.isArray(error.children)) issues.push(...issuesOf(error.children, path));
  }
  return issues;
}

/**
 * A plain value with every Date turned into its ISO string, which `@Type(() => Date)` turns back into a Date when the
 * processor reads it. Anything else JSON cannot hold is left for the JSON check every add runs (it names the path).
 */
function withIsoDates(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : value.toISOString();
  if (Array.isArray(value)) return value.map(withIsoDates);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIsoDates(item)]));
  }
  return value;
}
