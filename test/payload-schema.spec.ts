/**
 * The checks behind a queue's `schema`: which values are Standard Schemas, how an issue's path is written (as the JSON
 * checks write theirs), and what a faulty schema's answer becomes (an issue, never a crash).
 */
import { InvalidJobDataError, PayloadSchemaResult } from '../lib';
import { checkedPayload, describeIssues, payloadSchemaProblem, runPayloadSchema } from '../lib/utils/payload-schema.util';
import { checkFlowData, checkGraphData } from '../lib/producer/check-payloads';
import { MAX_GRAPH_JOBS } from '../lib/producer/prepare-graph';

const refusal = (result: unknown, root?: string): InvalidJobDataError => {
  try {
    checkedPayload('q', result as PayloadSchemaResult<unknown>, root);
  } catch (error) {
    return error as InvalidJobDataError;
  }
  throw new Error('not refused');
};

describe('payload schema checks', () => {
  it('accepts a Standard Schema object or function of version 1, and names what is wrong with anything else', () => {
    const standard = { version: 1, vendor: 'x', validate: () => ({ value: 1 }) };
    expect(payloadSchemaProblem({ '~standard': standard })).toBeNull();
    expect(payloadSchemaProblem(Object.assign(() => undefined, { '~standard': standard }))).toBeNull();
    expect(payloadSchemaProblem(null)).toContain('must be a Standard Schema object');
    expect(payloadSchemaProblem({})).toContain('no "~standard" property');
    expect(payloadSchemaProblem({ '~standard': { ...standard, version: 2 } })).toContain('version 2');
    expect(payloadSchemaProblem({ '~standard': { version: 1, vendor: 'x' } })).toContain('without a validate function');
    // A class is a class-validator DTO: accepted where class-validator and class-transformer are installed (here).
    class Dto {}
    expect(payloadSchemaProblem(Dto)).toBeNull();
  });

  it('refuses a DTO class, saying what to install, where class-validator or class-transformer is missing', () => {
    for (const missing of ['class-validator', 'class-transformer']) {
      jest.isolateModules(() => {
        jest.doMock(missing, () => {
          throw Object.assign(new Error(`Cannot find module '${missing}' from 'dto-schema.util.ts'`), { code: 'MODULE_NOT_FOUND' });
        });
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const isolated = require('../lib/utils/payload-schema.util') as typeof import('../lib/utils/payload-schema.util');
        class Dto {}
        expect(isolated.payloadSchemaProblem(Dto)).toContain('npm install class-validator class-transformer');
        jest.dontMock(missing);
      });
    }
  });

  it('writes issue paths as the JSON checks do, from the root given', () => {
    const error = refusal(
      {
        issues: [{ message: 'a', path: ['items', 2, { key: 'price' }] }, { message: 'b', path: ['a b'] }, { message: 'c' }],
      },
      'items[1].data',
    );
    expect(error.path).toBe('items[1].data.items[2].price');
    expect(error.issues).toEqual([
      { path: 'items[1].data.items[2].price', message: 'a' },
      { path: 'items[1].data["a b"]', message: 'b' },
      { path: 'items[1].data', message: 'c' },
    ]);
    expect(error.message).toContain('items[1].data.items[2].price: a (and 2 more issues)');
    expect(checkedPayload('q', { value: { ok: true } })).toEqual({ ok: true });
  });

  it("turns a faulty schema's answer into an issue: a throw, a rejection, no result, no issue list", async () => {
    const schema = (validate: () => unknown) => ({ '~standard': { version: 1 as const, vendor: 'x', validate } }) as never;
    expect(
      refusal(
        runPayloadSchema(
          schema(() => {
            throw new Error('boom');
          }),
          1,
        ),
      ).message,
    ).toContain("the schema's validate threw: boom");
    expect(
      refusal(
        await runPayloadSchema(
          schema(() => Promise.reject(new Error('late'))),
          1,
        ),
      ).message,
    ).toContain('threw: late');
    expect(refusal(undefined).message).toContain('returned undefined');
    expect(refusal({ issues: 'bad' }).message).toContain('not an array');
    expect(refusal({ issues: [] }).message).toContain('without saying why');
    const many = { issues: Array.from({ length: 12 }, (_, i) => ({ message: `m${i}`, path: [i] })) };
    expect(describeIssues(many)).toMatch(/data\[9\]: m9; and 2 more$/);
    // Exactly as many issues as are shown: nothing is left to count.
    const shownAll = { issues: many.issues.slice(0, 10) };
    expect(describeIssues(shownAll)).toMatch(/data\[9\]: m9$/);
  });

  it('awaits the asynchronous checks of a flow whose queues mix a synchronous and an asynchronous schema', async () => {
    const sync = { '~standard': { version: 1 as const, vendor: 'x', validate: (value: unknown) => ({ value: { sync: value } }) } };
    const async = {
      '~standard': { version: 1 as const, vendor: 'x', validate: (value: unknown) => Promise.resolve({ value: { async: value } }) },
    };
    const child = { queue: 'late', data: 2 };
    const flow = { queue: 'now', data: 1, children: [child] };
    const checked = await checkFlowData(flow, (queue) => (queue === 'late' ? async : sync));
    expect(checked?.get(flow)).toEqual({ sync: 1 });
    // Not the pending check itself: the stored data is what the asynchronous schema answered.
    expect(checked?.get(child)).toEqual({ async: 2 });
  });

  it("checks a graph's data only when the list is within the graph's limit (over it, the graph refuses it unchecked)", async () => {
    let calls = 0;
    const schema = { '~standard': { version: 1 as const, vendor: 'x', validate: (value: unknown) => (calls++, { value }) } };
    const jobs = (count: number) => Array.from({ length: count }, (_, i) => ({ ref: `r${i}`, queue: 'q', data: i }));
    expect(await checkGraphData(jobs(MAX_GRAPH_JOBS + 1), () => schema)).toBeNull();
    expect(calls).toBe(0);
    expect((await checkGraphData(jobs(3), () => schema))?.size).toBe(3);
    expect(calls).toBe(3);
  });
});
