/**
 * One problem a schema found in a value: its message and, when it is inside the value, where (keys from the root;
 * a segment may be a key or an object holding it).
 */
export interface PayloadSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a schema's `validate` answers: the (possibly transformed) value, or the issues. */
export type PayloadSchemaResult<TOutput> =
  { readonly value: TOutput; readonly issues?: undefined } | { readonly issues: ReadonlyArray<PayloadSchemaIssue> };

/**
 * A job payload's schema, in the Standard Schema shape (version 1) that zod (3.24 and later), valibot (1 and later),
 * arktype and others implement: declared with the queue's `schema` option, it checks the data of every job added
 * in this process and every job its processor runs. Only the `~standard` property is read.
 */
export interface PayloadSchema<TInput = unknown, TOutput = TInput> {
  readonly '~standard': {
    readonly version: 1;
    /** The library that made the schema (`zod`, `valibot`...): shown in errors. */
    readonly vendor: string;
    /** Checks a value: its result, or a promise of it (an asynchronous refinement). */
    readonly validate: (value: unknown) => PayloadSchemaResult<TOutput> | Promise<PayloadSchemaResult<TOutput>>;
    /** Types only: the input and output of the schema, read by `SchemaInput` and `SchemaData`. */
    readonly types?: { readonly input: TInput; readonly output: TOutput } | undefined;
  };
}

/**
 * A class-validator DTO class given as a queue's `schema` (with the optional peers class-validator and
 * class-transformer installed): a class whose instances class-transformer can make without constructor arguments.
 */
export type DtoClass<T extends object = object> = new (...args: never[]) => T;

/** What a queue's `schema` option takes: a Standard Schema object, or a class-validator DTO class. */
export type QueueDataSchema = PayloadSchema | DtoClass;

/** The fields of a DTO's instance that are not methods: what a producer passes to make one. */
export type DtoInput<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };

/**
 * The data a job of a schema's queue holds (the schema's output: defaults and transforms applied; for a DTO class,
 * an instance of it), for `Job<SchemaData<typeof schema>>` in a processor.
 */
export type SchemaData<TSchema> = TSchema extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : TSchema extends DtoClass<infer I>
    ? I
    : unknown;

/** The data a producer passes for a schema's queue (the schema's input; for a DTO class, its fields), for `add()`. */
export type SchemaInput<TSchema> = TSchema extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : TSchema extends DtoClass<infer I>
    ? DtoInput<I>
    : unknown;
