/**
 * Governed policy through the running app, for tests: the app on a real policy file that the test
 * rewrites, the policy-change messages in the approvals channel and their buttons clicked as Slack
 * sends the clicks. The file is checked with `checkPolicyFile()` (what the watcher calls), so
 * nothing depends on file-system timing.
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import type { FakeMessage } from './fake-slack.js';
import { CHANNELS, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from './treasury-app.js';
import { until } from './wait.js';

/** Two admins (Erin, Dave): a change needs both. */
export const GOVERNED_POLICY = TEST_POLICY_YAML.replace(
  `admins: [${USERS.erin}]`,
  `admins: [${USERS.erin}, ${USERS.dave}]`,
);

export const gov = (a: TestApp) => a.app.deps.policyGovernance;
export const actions = (a: TestApp) => recentAudit(a.app.deps.store, 200).map((e) => e.action);
export const changeMessages = (a: TestApp) =>
  a.fake.channel(CHANNELS.approvals).filter((m) => (m.text ?? '').startsWith('Treasury policy change'));
export const textOf = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
export const buttons = (m: FakeMessage) =>
  ((m.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!);

/** Click a button of the change message as `user`; returns the ephemeral answer. */
export async function decideChange(
  a: TestApp,
  user: string,
  kind: 'approve' | 'reject',
  m: FakeMessage,
): Promise<string> {
  const button = buttons(m).find((b) => b.action_id === `policy_change_${kind}`)!;
  const { res, responseUrl } = await a.click(
    user,
    { actionId: button.action_id, value: button.value },
    { channel: CHANNELS.approvals, message: { ts: m.ts, blocks: m.blocks } },
  );
  expect(res.status).toBe(200);
  const [reply] = await a.replies(responseUrl);
  return String(reply!.text);
}

/** Writes `text` to the policy file, checks it, and returns the change message it posts. */
export async function proposeFile(a: TestApp, file: string, text: string): Promise<FakeMessage> {
  const before = changeMessages(a).length;
  writeFileSync(file, text);
  expect((await gov(a).checkPolicyFile()).kind).toBe('proposed');
  return until('the change message', () => changeMessages(a)[before]);
}
