/**
 * A fresh install with no SANCTIONS_LIST_URL: the bundled snapshot is all there is and turns stale;
 * `/treasury status`, the refusal and a manual `screening.refresh` run say to set SANCTIONS_LIST_URL
 * instead of "until the list is refreshed", which would never happen.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { createScreening } from '../../src/screening/service.js';
import { screeningProblem, screeningStatusText } from '../../src/slack/screening-words.js';
import { openStore, type Store } from '../../src/store/index.js';
import { judgeStaleList } from '../../src/withdrawals/screening-rules.js';
import type { RuleFacts } from '../../src/withdrawals/rule-types.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';
import { quietLogger } from '../withdrawals/helpers.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

it('no SANCTIONS_LIST_URL: status, the refusal and a manual refresh say to set it', async () => {
  store = await openStore({ dir: mkdtempSync(join(tmpdir(), 'unsourced-')), logger: quietLogger() });
  const policy = parsePolicy(`${TEST_POLICY_YAML}\nscreening: { max_age: 2h, stale_block_above: 1000 }\n`);
  const now = () => Date.parse('2040-01-01T00:00:00Z');
  const s = await createScreening({
    source: undefined,
    store,
    policy: fixedPolicy(policy),
    now,
    logger: quietLogger(),
  });
  expect(s.status()).toMatchObject({ bundled: true, unsourced: true, stale: true });
  expect(screeningStatusText(s.status(), '1000')).toContain('set SANCTIONS_LIST_URL to refresh the list');
  expect(screeningProblem(s.status(), '1000')).toContain('sets SANCTIONS_LIST_URL');
  await expect(s.refresh({ force: true })).rejects.toThrow(/set SANCTIONS_LIST_URL to refresh the list/);
  await expect(s.refresh()).resolves.toBeUndefined();

  const req = { id: 'r', destination: '0x2222222222222222222222222222222222222222' } as WithdrawalRequest;
  const facts = {
    step: 'request',
    now: now(),
    policy,
    valuation: { kind: 'known', usd: '5000' },
    screening: s.facts(),
  } as unknown as RuleFacts;
  const v = judgeStaleList(req, facts);
  expect(v).toMatchObject({ kind: 'hold' });
  expect(v.kind === 'hold' && v.message).toContain('until an admin sets SANCTIONS_LIST_URL to refresh the list');
});
