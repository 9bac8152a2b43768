/**
 * The local workspace follows the policy in force: a change to its people (a governed change
 * applies while the app runs) shows on the page at once, with no restart.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { startLocalWorkspace, type LocalWorkspace } from '../../src/local/workspace.js';
import { createLogger } from '../../src/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/schema.js';
import { TEST_POLICY_YAML, USERS } from '../helpers/treasury-app.js';
import { changingPolicy } from '../helpers/policy-source.js';

let policy: Policy = parsePolicy(TEST_POLICY_YAML);
let workspace: LocalWorkspace;
let server: HttpServer;

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  workspace = await startLocalWorkspace({
    policy: changingPolicy(() => policy),
    logger,
    eventsUrl: () => 'http://127.0.0.1:1/slack/events',
  });
  server = await startHttpServer(workspace.routes, { port: 0, host: '127.0.0.1', logger });
});
afterAll(async () => {
  await server?.close();
  await workspace?.close();
});

const people = async (user: string) => {
  const res = await fetch(`http://127.0.0.1:${server.port}/local/state?user=${user}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { people: Array<{ id: string; roles: string[] }> }).people;
};

it('shows people added to or removed from the policy in force, with their roles, without a restart', async () => {
  const NEW = 'U0NEWHIRE';
  expect((await people(USERS.alice)).map((p) => p.id)).not.toContain(NEW);
  const before = policy;
  policy = {
    ...before,
    people: {
      ...before.people,
      requesters: [...before.people.requesters, NEW],
      approvers: before.people.approvers.filter((u) => u !== USERS.erin),
    },
  };
  const after = await people(USERS.alice);
  expect(after.find((p) => p.id === NEW)?.roles).toContain('requesters');
  expect(after.find((p) => p.id === USERS.erin)?.roles ?? []).not.toContain('approvers');
  expect(workspace.people.some((p) => p.id === NEW)).toBe(true);
  // Slack's user list (users.info) knows the newcomer too, as it knows everyone in a workspace.
  const info = await fetch(`${workspace.apiUrl}users.info`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workspace.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `user=${NEW}`,
  });
  expect(((await info.json()) as { user?: { name?: string } }).user?.name).toBe('newhire');
});

it('in local mode, a governed change to the people shows on the page once the admins approve it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-people-'));
  const file = join(dir, 'policy.yml');
  writeFileSync(file, TEST_POLICY_YAML);
  const app = await startApp({
    config: loadConfig({ PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dir, POLICY_FILE: file }),
    logger: createLogger({ level: 'silent' }),
    watchPolicyFile: false,
  });
  try {
    const ids = async () =>
      (
        (await (await fetch(`${app.url}/local/state?user=${USERS.alice}`)).json()) as { people: Array<{ id: string }> }
      ).people.map((p) => p.id);
    const NEW = 'U0NEWHIRE';
    expect(await ids()).not.toContain(NEW);
    writeFileSync(
      file,
      TEST_POLICY_YAML.replace(
        `requesters: [${USERS.alice}, ${USERS.bob}]`,
        `requesters: [${USERS.alice}, ${USERS.bob}, ${NEW}]`,
      ),
    );
    const governor = app.deps.policyGovernance;
    const checked = await governor.checkPolicyFile();
    if (checked.kind !== 'proposed') throw new Error(`the change was ${checked.kind}`);
    // The test policy's one admin approves it (a single admin's policy needs one approval).
    const decided = await governor.approve(checked.proposal.id, USERS.erin);
    expect(decided).toMatchObject({ ok: true, applied: true });
    expect(await ids()).toContain(NEW);
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
