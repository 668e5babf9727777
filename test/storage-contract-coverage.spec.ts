/**
 * Every member of every role of `QueueStorage` (lib/storage/roles/) is named in a storage contract file
 * (test/storage-contract*.e2e-spec.ts, run on every backend): a member added without its contract case fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROLES_DIR = join(__dirname, '..', 'lib', 'storage', 'roles');

/** The member names an interface file declares (its two-space-indented property and method lines). */
function membersOf(file: string): string[] {
  const text = readFileSync(join(ROLES_DIR, file), 'utf8');
  return [...text.matchAll(/^ {2}(?:readonly\s+)?([A-Za-z$][\w$]*)\??\s*[(:]/gm)].map((match) => match[1]);
}

describe('storage contract coverage', () => {
  const contracts = readdirSync(__dirname)
    .filter((file) => /^storage-contract.*\.e2e-spec\.ts$/.test(file))
    .map((file) => readFileSync(join(__dirname, file), 'utf8'))
    .join('\n');
  const roles = readdirSync(ROLES_DIR).filter((file) => file.endsWith('.interface.ts'));

  it('finds the roles and their members', () => {
    expect(roles.length).toBeGreaterThanOrEqual(12);
    expect(roles.flatMap(membersOf).length).toBeGreaterThanOrEqual(60);
  });

  it.each(roles)('%s: every member is named in a contract file', (role) => {
    const missing = membersOf(role).filter((name) => !new RegExp(`\\b${name.replace('$', '\\$')}(?![\\w$])`).test(contracts));
    expect(missing).toEqual([]);
  });
});
