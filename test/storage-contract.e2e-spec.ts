/**
 * The storage contract of every backend, in one run: the contract modules of test/storage-contract/ (one per role or
 * group of roles of `QueueStorage`), then the coverage case. Every storage a contract case uses records the members
 * it calls (`recordingStorage`); the last case fails on a member of a role (lib/storage/roles/) that no case called
 * on a backend of this run. A member is covered by a case that runs it, on every backend, never by a mention.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import './storage-contract/completion-removal.contract';
import './storage-contract/core.contract';
import './storage-contract/dependencies.contract';
import './storage-contract/events.contract';
import './storage-contract/explain.contract';
import './storage-contract/flows.contract';
import './storage-contract/groups.contract';
import './storage-contract/keys.contract';
import './storage-contract/lifecycle.contract';
import './storage-contract/limits.contract';
import './storage-contract/operator.contract';
import './storage-contract/sort.contract';
import './storage-contract/waits.contract';
import { describeEachBackend } from './support/backends';
import { CONTRACT_CALLS } from './support/storage-contract';

const ROLES_DIR = join(__dirname, '..', 'lib', 'storage', 'roles');

/**
 * The members each role interface declares (`…Storage`, `StorageLifecycle`; not the record types a role file may
 * also declare), read by the TypeScript parser: role file -> member names.
 */
function roleMembers(): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const file of readdirSync(ROLES_DIR).filter((name) => name.endsWith('.interface.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(ROLES_DIR, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const members: string[] = [];
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node) || !/(Storage|Lifecycle)$/.test(node.name.text)) return;
      for (const member of node.members) if (member.name && ts.isIdentifier(member.name)) members.push(member.name.text);
    });
    roles.set(file, members);
  }
  return roles;
}

describe('storage contract coverage', () => {
  it('finds the roles and their members', () => {
    const roles = roleMembers();
    expect(roles.size).toBeGreaterThanOrEqual(12);
    expect([...roles.values()].flat().length).toBeGreaterThanOrEqual(60);
  });
});

// Registered after every contract module above: jest runs a file's tests in order, so this runs last.
describeEachBackend('storage contract coverage', (backend) => {
  it('every member of every role was called by a contract case on this backend', () => {
    const called = CONTRACT_CALLS.get(backend.name) ?? new Set<string>();
    const missing = [...roleMembers()].flatMap(([role, members]) =>
      members.filter((member) => !called.has(member)).map((member) => `${role}: ${member}`),
    );
    expect(missing).toEqual([]);
  });
});
