/**
 * The chaos soak's analysis (bench/soak/analyze.js) in delete mode: a job missing from the final table counts as
 * completed only when its queue deletes completed jobs (or it was added with removeOnComplete) and the ledger shows
 * its handler ran to its end (`E`) or its completion stored (`C`); every other missing job is lost, and without delete
 * mode every missing job is lost as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface SoakRow {
  id: string;
  queue: string;
  status: string;
  attempts: number;
  parentId: string | null;
  onChildFailure: string | null;
  data: Record<string, unknown>;
  finishedAt: number | null;
  origin: null;
  maxAttempts?: number;
  error?: string | null;
  runs?: { attempt: number; outcome: string; owner: string | null; startedAt: number | null; endedAt: number }[];
}
interface SoakAnalysis {
  lost: string[];
  failed: string[];
  completed: number;
  waits: { started: number; answered: number; removedBeforeWait: number; wrong: string[]; failed: string[]; unanswered: string[] };
  dependencies: { dependents: number; earlyDependents: string[]; failedAsPlanned: number; ranAfterDeletedDependency: number };
  deleted?: { total: number; perJob: number; stored: number; endOnly: number; byQueue: Record<string, number> };
  doubles: { unexplained: string[] };
  reruns: { planned: number; snoozed: number; explained: number; claimedByKilled: number; outage: number; unexplained: string[] };
}
// The soak is plain CommonJS without types: the slice this test uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { analyze } = require('../bench/soak/analyze') as {
  analyze: (input: { dir: string; rows: SoakRow[]; killedPids: Set<number>; deleting?: { queues: string[] } }) => SoakAnalysis;
};

const row = (id: string, queue: string, marker: string): SoakRow => ({
  id,
  queue,
  status: 'completed',
  attempts: 1,
  parentId: null,
  onChildFailure: null,
  data: { m: marker },
  finishedAt: 1000,
  origin: null,
});

describe('soak analysis with deletion on completion', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'soak-analyze-'));
    // Job 1 in the deleting queue soak-a, ran to its end and stored; job 2 in soak-b added with removeOnComplete,
    // ran to its end (its process killed before the completion event); job 3 in soak-b without removeOnComplete,
    // ran to its end; job 4 in soak-a, started but never ran to its end; job 5 in soak-d, kept in the table.
    writeFileSync(
      join(dir, 'producer-0.log'),
      ['A 1 p0-0 soak-a', 'A 2 p0-1 soak-b r', 'A 3 p0-2 soak-b', 'A 4 p0-3 soak-a', 'A 5 p0-4 soak-d', ''].join('\n'),
    );
    writeFileSync(
      join(dir, 'consumer-100.log'),
      [
        'S 1 1 p0-0 10',
        'E 1 1 11',
        'C 1 1',
        'S 2 1 p0-1 12',
        'E 2 1 13',
        'S 3 1 p0-2 14',
        'E 3 1 15',
        'C 3 1',
        'S 4 1 p0-3 16',
        'S 5 1 p0-4 17',
        'E 5 1 18',
        'C 5 1',
        '',
      ].join('\n'),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts a deleted job completed only when it could be deleted and its run reached its end', () => {
    const result = analyze({ dir, rows: [row('5', 'soak-d', 'p0-4')], killedPids: new Set(), deleting: { queues: ['soak-a'] } });
    // Job 3's queue keeps its jobs (it was not added with removeOnComplete): its missing row is lost although it ran.
    // Job 4 could be deleted, but no run of it reached its end: a row deleted without an `E` is lost.
    expect(result.lost).toEqual(['3 (p0-2, soak-b): missing, ran to its end', '4 (p0-3, soak-a): missing, never ran to its end']);
    expect(result.deleted).toEqual({ byQueue: { 'soak-a': 1 }, perJob: 1, stored: 1, endOnly: 1, total: 2 });
    expect(result.completed).toBe(1);
  });

  it('counts every missing job lost outside delete mode', () => {
    const result = analyze({ dir, rows: [row('5', 'soak-d', 'p0-4')], killedPids: new Set() });
    expect(result.lost).toEqual(['1 (p0-0): missing', '2 (p0-1): missing', '3 (p0-2): missing', '4 (p0-3): missing']);
    expect(result.deleted).toBeUndefined();
  });

  it('still finds a job of a deleting queue that is in the table unfinished', () => {
    const rows = [row('5', 'soak-d', 'p0-4'), { ...row('4', 'soak-a', 'p0-3'), status: 'pending' }];
    const result = analyze({ dir, rows, killedPids: new Set(), deleting: { queues: ['soak-a'] } });
    expect(result.lost).toContain('4 (p0-3): pending');
  });
});

describe('soak analysis of dependencies', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'soak-deps-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Jobs 1 and 2 are dependencies of 3 ('continue') and of 4 ('fail'); 2 fails for good (its `U` at 30).
  const ledgers = (consumer: string[]) => {
    writeFileSync(
      join(dir, 'producer-0.log'),
      ['A 1 p0-0 soak-a', 'A 2 p0-1 soak-a', 'A 3 p0-2 soak-b', 'D 3 p0-2 continue 1,2', 'A 4 p0-3 soak-b', 'D 4 p0-3 fail 1,2', ''].join(
        '\n',
      ),
    );
    writeFileSync(
      join(dir, 'consumer-100.log'),
      ['S 1 1 p0-0 10', 'E 1 1 20', 'C 1 1', 'S 2 1 p0-1 25', 'U 2 1 30', ...consumer, ''].join('\n'),
    );
  };
  const rows = (dependent4: Partial<SoakRow> = {}) => [
    row('1', 'soak-a', 'p0-0'),
    { ...row('2', 'soak-a', 'p0-1'), status: 'failed', data: { m: 'p0-1', ff: 1 } },
    row('3', 'soak-b', 'p0-2'),
    { ...row('4', 'soak-b', 'p0-3'), status: 'failed', attempts: 0, ...dependent4 },
  ];

  it("passes a 'continue' dependent that ran after every dependency ended and read the completed one's result", () => {
    ledgers(['S 3 1 p0-2 31', 'Q 3 1 1 32', 'E 3 1 33', 'C 3 1']);
    const result = analyze({ dir, rows: rows(), killedPids: new Set() });
    expect(result.dependencies).toEqual({ dependents: 2, earlyDependents: [], failedAsPlanned: 1, ranAfterDeletedDependency: 0 });
    // The 'fail' dependent failed by its failed dependency is planned, not counted failed; 2 failed on purpose.
    expect(result.failed).toEqual([]);
  });

  it('finds a dependent that started before a dependency ended, or read another number of results', () => {
    ledgers(['S 3 1 p0-2 29', 'Q 3 1 2 32', 'E 3 1 33', 'C 3 1']);
    const result = analyze({ dir, rows: rows(), killedPids: new Set() });
    expect(result.dependencies.earlyDependents).toEqual([
      "3 (p0-2): started at 29, a dependency's run ended at 30",
      '3 (p0-2): read 2 results of 1 completed dependencies',
    ]);
  });

  it("finds a 'fail' dependent that ran, or did not fail, although a dependency failed", () => {
    ledgers(['S 3 1 p0-2 31', 'Q 3 1 1 32', 'E 3 1 33', 'C 3 1', 'S 4 1 p0-3 34', 'E 4 1 35']);
    expect(analyze({ dir, rows: rows({ status: 'completed', attempts: 1 }), killedPids: new Set() }).dependencies.earlyDependents).toEqual([
      "4 (p0-3): ran although dependency 2 failed (onDependencyFailure 'fail')",
    ]);
    ledgers(['S 3 1 p0-2 31', 'Q 3 1 1 32', 'E 3 1 33', 'C 3 1']);
    const result = analyze({ dir, rows: rows({ status: 'pending' }), killedPids: new Set() });
    expect(result.dependencies.earlyDependents).toEqual(['4 (p0-3): pending after 0 attempts, not failed by its failed dependency']);
  });

  it('allows fewer results in delete mode, where a completed dependency may be gone, never more', () => {
    ledgers(['S 3 1 p0-2 31', 'Q 3 1 0 32', 'E 3 1 33', 'C 3 1']);
    const deleting = { queues: ['soak-a'] };
    const kept = analyze({ dir, rows: rows(), killedPids: new Set() });
    expect(kept.dependencies.earlyDependents).toEqual(['3 (p0-2): read 0 results of 1 completed dependencies']);
    const gone = analyze({ dir, rows: rows().filter((r) => r.id !== '1'), killedPids: new Set(), deleting });
    expect(gone.dependencies).toMatchObject({ earlyDependents: [], ranAfterDeletedDependency: 1 });
    expect(gone.lost).toEqual([]);
  });
});

describe('soak analysis of waits', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'soak-waits-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes waits answered with their own result, and those of a killed or stopped producer left unanswered', () => {
    writeFileSync(
      join(dir, 'producer-0.log'),
      [
        'A 1 p0-0 soak-a',
        'V 1 p0-0 7',
        'A 2 p0-1 soak-b',
        'V 2 p0-1 8',
        'A 3 p0-2 soak-b',
        'V 3 p0-2 9',
        'X 1 p0-0 completed p0-0 7',
        'N 3 p0-2 9',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'consumer-100.log'),
      ['S 1 1 p0-0 10', 'E 1 1 11', 'C 1 1', 'S 2 1 p0-1 12', 'E 2 1 13', 'C 2 1', 'S 3 1 p0-2 14', 'E 3 1 15', 'C 3 1', ''].join('\n'),
    );
    const rows = [row('1', 'soak-a', 'p0-0'), row('2', 'soak-b', 'p0-1'), row('3', 'soak-b', 'p0-2')];
    // pid 8 was killed: its wait never answered, rightly.
    const result = analyze({ dir, rows, killedPids: new Set([8]) });
    expect(result.waits).toEqual({ started: 3, answered: 1, removedBeforeWait: 0, wrong: [], failed: [], unanswered: [] });
  });

  it('finds a wait that read another result or status, one that rejected, and one of a live process never answered', () => {
    writeFileSync(
      join(dir, 'producer-0.log'),
      [
        'A 1 p0-0 soak-a',
        'V 1 p0-0 7',
        'A 2 p0-1 soak-b',
        'V 2 p0-1 7',
        'A 3 p0-2 soak-b',
        'V 3 p0-2 7',
        'A 4 p0-3 soak-b',
        'V 4 p0-3 7',
        'X 1 p0-0 completed p0-9 7',
        'X 2 p0-1 failed - 7',
        'Y 3 p0-2 QueryFailedError 7',
        '',
      ].join('\n'),
    );
    const rows = ['1', '2', '3', '4'].map((id) => row(id, 'soak-b', `p0-${Number(id) - 1}`));
    const result = analyze({ dir, rows, killedPids: new Set() });
    expect(result.waits).toEqual({
      started: 4,
      answered: 3,
      removedBeforeWait: 0,
      wrong: ['1 (p0-0): the wait in pid 7 read completed with result p0-9', '2 (p0-1): the wait in pid 7 read failed with result -'],
      failed: ['3 (p0-2): the wait in pid 7 rejected with QueryFailedError'],
      unanswered: ['4 (p0-3): waited for in live pid 7, never answered'],
    });
  });

  it('in delete mode, counts a deletable job that ended before its wait could register as removed before it, not later', () => {
    writeFileSync(
      join(dir, 'producer-0.log'),
      [
        'A 1 p0-0 soak-a',
        'V 1 p0-0 7 20',
        'Y 1 p0-0 JobNotFoundError 7',
        'A 2 p0-1 soak-a',
        'V 2 p0-1 7 20',
        'Y 2 p0-1 JobNotFoundError 7',
        'A 3 p0-2 soak-d',
        'V 3 p0-2 7 20',
        'Y 3 p0-2 JobNotFoundError 7',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'consumer-100.log'),
      ['S 1 1 p0-0 10', 'E 1 1 11', 'C 1 1', 'S 2 1 p0-1 10021', 'E 2 1 10025', 'C 2 1', 'S 3 1 p0-2 12', 'E 3 1 13', 'C 3 1', ''].join(
        '\n',
      ),
    );
    const result = analyze({ dir, rows: [], killedPids: new Set(), deleting: { queues: ['soak-a'] } });
    expect(result.waits).toMatchObject({
      started: 3,
      removedBeforeWait: 1,
      // Job 2 ended 10 s after its wait began (registered by then); job 3's queue keeps its jobs: both should have been
      // read completed.
      failed: [
        '2 (p0-1): the wait in pid 7 rejected with JobNotFoundError (its run ended 10005 ms after the wait began)',
        '3 (p0-2): the wait in pid 7 rejected with JobNotFoundError (its run ended -7 ms after the wait began)',
      ],
    });
  });
});

describe('soak analysis of rolled-back transactional adds', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'soak-analyze-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fails a rolled-back add whose own row exists, and reports one whose marker an earlier unacknowledged try stored', () => {
    // p0-1: an earlier try stored it as job 11 without an acknowledgement (a kill, or a lost answer), then the same add
    // was sent again in a transaction that rolled back as job 40. p0-2: rolled back as job 41, yet job 41 holds it.
    // p0-3: rolled back as job 42 and stored nowhere; job 42's id went to another job (p0-4).
    writeFileSync(
      join(dir, 'producer-0.log'),
      ['A 10 p0-0 soak-a', 'R 40 p0-1', 'R 41 p0-2', 'R 42 p0-3', 'A 42 p0-4 soak-a', ''].join('\n'),
    );
    writeFileSync(join(dir, 'consumer-100.log'), '');
    const rows = [row('10', 'soak-a', 'p0-0'), row('11', 'soak-a', 'p0-1'), row('41', 'soak-a', 'p0-2'), row('42', 'soak-a', 'p0-4')];
    const result = analyze({ dir, rows, killedPids: new Set() }) as SoakAnalysis & {
      transactions: { rolledBack: number; rolledBackStored: string[]; rolledBackStoredEarlier: number; rolledBackIdReused: number };
    };
    expect(result.transactions).toEqual({
      rolledBack: 3,
      rolledBackStored: ['p0-2 (rolled back as 41) stored'],
      rolledBackStoredEarlier: 1,
      rolledBackIdReused: 2,
    });
  });
});

describe('soak analysis of re-runs and failures', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'soak-analyze-'));
    // Job 1: attempt 1 started in live pid 100 and snoozed on purpose; the next start the ledgers hold is attempt 2,
    // in pid 200 (the snoozed attempt 1 was claimed again by some process that left no start). Job 2 failed.
    writeFileSync(join(dir, 'producer-0.log'), ['A 1 p0-0 soak-a', 'A 2 p0-1 soak-b', ''].join('\n'));
    writeFileSync(join(dir, 'consumer-100.log'), ['S 1 1 p0-0 10', 'Z 1 1', 'S 2 1 p0-1 11', ''].join('\n'));
    writeFileSync(join(dir, 'consumer-200.log'), ['S 1 2 p0-0 30', 'E 1 2 31', 'C 1 2', ''].join('\n'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (attempt: number, outcome: string, pid: number) => ({
    attempt,
    outcome,
    owner: `host:${pid}:0a1b2c3d`,
    startedAt: 10,
    endedAt: 20,
  });
  const rows = (lastOwner: number): SoakRow[] => [
    { ...row('1', 'soak-a', 'p0-0'), attempts: 2, runs: [run(1, 'snoozed', 100), run(1, 'lease-expired', lastOwner)] },
    {
      ...row('2', 'soak-b', 'p0-1'),
      status: 'failed',
      attempts: 25,
      maxAttempts: 25,
      error: JSON.stringify({ message: 'Job 2 was snoozed\nmore than 1000 times' }),
      runs: [run(24, 'lease-expired', 100)],
    },
  ];

  it('explains a re-run whose earlier attempt was last held by a process the soak killed (a claim cut before its start)', () => {
    const result = analyze({ dir, rows: rows(300), killedPids: new Set([300]) });
    expect(result.reruns.claimedByKilled).toBe(1);
    expect(result.reruns.unexplained).toEqual([]);
  });

  it('leaves it unexplained, with the stored runs, when that process lived or the live process itself lost the lease', () => {
    for (const owner of [300, 100]) {
      const result = analyze({ dir, rows: rows(owner), killedPids: new Set() });
      expect(result.reruns.claimedByKilled).toBe(0);
      expect(result.reruns.unexplained).toEqual([
        `1 attempt 2 after attempt 1 of live pid 100, which snoozed and was not started again (runs: snoozed #1 pid 100, lease-expired #1 pid ${owner})`,
      ]);
    }
  });

  it('reports a failed job with its attempts, its last error and its stored runs', () => {
    const result = analyze({ dir, rows: rows(300), killedPids: new Set([300]) });
    expect(result.failed).toEqual([
      '2 (soak-b, attempt 25 of 25: Job 2 was snoozed more than 1000 times; runs: lease-expired #24 pid 100)',
    ]);
  });
});
