import { InvalidJobOptionsError, InvalidQueueNameError } from '../lib';
import { MAX_FLOW_JOBS, prepareFlow } from '../lib/producer/prepare-flow';
import { FLOW_WAIT_OFFSET } from '../lib/storage/shared/flow-wait';

const defaults = () => ({ maxAttempts: 3 });
const NOW = 1_700_000_000_000;

describe('prepareFlow', () => {
  it('flattens a tree parents first, children in the order given, each pointing at its parent', () => {
    const nodes = prepareFlow(
      {
        queue: 'root',
        data: 'r',
        children: [
          { queue: 'a', data: 'a', children: [{ queue: 'a1', data: 'a1' }] },
          { queue: 'b', data: 'b' },
        ],
      },
      defaults,
      NOW,
    );
    expect(nodes.map((node) => [node.queue, node.parentIndex])).toEqual([
      ['root', -1],
      ['a', 0],
      ['a1', 1],
      ['b', 0],
    ]);
  });

  it('makes parents wait (run_at pushed by the offset, keeping their delay) and gives them the failure policy', () => {
    const [parent, child] = prepareFlow(
      { queue: 'p', data: 1, options: { delay: 500 }, onChildFailure: 'continue', children: [{ queue: 'c', data: 2 }] },
      defaults,
      NOW,
    );
    expect(parent.job.runAt).toBe(NOW + 500 + FLOW_WAIT_OFFSET);
    expect(parent.onChildFailure).toBe('continue');
    expect(child.job.runAt).toBe(NOW);
    expect(child.onChildFailure).toBeNull();
    expect(prepareFlow({ queue: 'p', data: 1, children: [{ queue: 'c', data: 2 }] }, defaults, NOW)[0].onChildFailure).toBe('fail');
  });

  it('refuses bad nodes, naming where they are', () => {
    const bad = (flow: unknown) => () => prepareFlow(flow as never, defaults, NOW);
    expect(bad({ queue: 'p', data: 1, children: [{ queue: 'c', data: 1, options: { key: 'k' } }] })).toThrow(
      'flow.children[0].options.key',
    );
    expect(bad({ queue: 'p', data: 1, children: [{ queue: 'c', data: 1, options: { manager: {} } }] })).toThrow(InvalidJobOptionsError);
    expect(bad({ queue: 'p', data: 1, children: [{ queue: 'c' }] })).toThrow('flow.children[0].data');
    expect(bad({ queue: 'p', data: 1, onChildFailure: 'ignore' })).toThrow('flow.onChildFailure');
    expect(bad({ queue: 'p', data: 1, child: [] })).toThrow('flow.child');
    expect(bad({ queue: 'bad name', data: 1 })).toThrow(InvalidQueueNameError);
    expect(bad(null)).toThrow(InvalidJobOptionsError);
  });

  it('refuses a tree that contains itself, or more than the limit of jobs', () => {
    const loop: { queue: string; data: number; children: unknown[] } = { queue: 'p', data: 1, children: [] };
    loop.children.push(loop);
    expect(() => prepareFlow(loop as never, defaults, NOW)).toThrow(`more than ${MAX_FLOW_JOBS} jobs`);
  });

  it('takes a flow of exactly the limit of jobs, and refuses one of a job more', () => {
    const flowOf = (jobs: number) => ({
      queue: 'p',
      data: 0,
      children: Array.from({ length: jobs - 1 }, (_, i) => ({ queue: 'c', data: i + 1 })),
    });
    expect(prepareFlow(flowOf(MAX_FLOW_JOBS), defaults, NOW)).toHaveLength(MAX_FLOW_JOBS);
    expect(() => prepareFlow(flowOf(MAX_FLOW_JOBS + 1), defaults, NOW)).toThrow(`more than ${MAX_FLOW_JOBS} jobs`);
  });
});
