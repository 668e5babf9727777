/**
 * The demonstration (`npm start`) is the first thing a user trusts: every figure its summary prints must be exact and
 * agree with the others. The sample runs here as `npm start` runs it in CI (no terminal, so it must end by itself),
 * on a database of its own, with its schedule firing every 50 ms so that a run completing while the summary is read
 * would show (it did: "reports ran 44 times" above a table saying 45).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE_CONFIG } from '../sample/sample.config';
import { startScript } from './support/child-app';

/** The summary's table: completed and failed per queue. */
function tableOf(stdout: string): Map<string, { completed: number; failed: number }> {
  const rows = stdout.split('\n').filter((line) => /^ {2}[a-z]+ +(\d+|-) +\d+ +\d+ +\d+ /.test(line));
  return new Map(
    rows.map((line) => {
      const [queue, , completed, failed] = line.trim().split(/ +/);
      return [queue, { completed: Number(completed), failed: Number(failed) }];
    }),
  );
}

describe('the sample app (npm start)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'sqlite-queue-sample-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends by itself without a terminal, says how to keep the dashboard open, and prints exact figures that agree', async () => {
    const child = startScript('sample/main.ts', [], {
      SAMPLE_DATABASE: join(dir, 'sample.sqlite'),
      SAMPLE_PORT: '0',
      SAMPLE_REPORT_EVERY_MS: '50',
      SAMPLE_KEEP_OPEN: '',
    });
    // 'close': the process has exited and its output is all read.
    const code = await new Promise((resolve) => child.process.on('close', (exitCode, signal) => resolve(exitCode ?? signal)));
    const out = child.stdout();
    expect(code).toBe(0);

    const { newsletters, passwordResets, welcomeFollowUps } = SAMPLE_CONFIG.jobs;
    expect(out).toContain(
      `email: completed by job name: newsletter ${newsletters}, password-reset ${passwordResets}, welcome-follow-up ${welcomeFollowUps}\n`,
    );

    const table = tableOf(out);
    expect([...table.keys()].sort()).toEqual(['albums', 'billing', 'email', 'images', 'reports']);
    const runs = Number(/ran (\d+) times?[;,]/.exec(out)?.[1]);
    expect(runs).toBe(table.get('reports')!.completed);
    // The backlog line has one entry per run, some of them counted in "(n more)".
    const backlog = /backlog each run saw \(waiting \+ running jobs\): (.*)/.exec(out)![1].split(' -> ');
    const more = backlog.map((entry) => Number(/^\((\d+) more\)$/.exec(entry)?.[1] ?? 0)).reduce((a, b) => a + b, 0);
    expect(backlog.filter((entry) => !entry.startsWith('(')).length + more).toBe(runs);

    const enqueued = Number(/^Enqueued (\d+) jobs/m.exec(out)?.[1]);
    const finished = Number(/^(\d+) jobs finished in/m.exec(out)?.[1]);
    const others = [...table].filter(([queue]) => queue !== 'reports').reduce((sum, [, row]) => sum + row.completed + row.failed, 0);
    expect(finished).toBe(enqueued);
    expect(others).toBe(enqueued);
    const events = /job events seen through QueueEvents: added (\d+), .* completed (\d+), failed (\d+)/.exec(out)!;
    const completed = [...table.values()].reduce((sum, row) => sum + row.completed, 0);
    expect([Number(events[1]), Number(events[2]), Number(events[3])]).toEqual([enqueued, completed, 0]);

    expect(out).toMatch(
      /^Dashboard: http:\/\/127\.0\.0\.1:\d+\/queues \(open while this run lasts.*`npm run start:dashboard` keeps it open/m,
    );
    expect(out).toContain(
      'Done: the dashboard closes with the app. `npm run start:dashboard` runs the same and keeps it open until Ctrl+C.\n',
    );
  });
});
