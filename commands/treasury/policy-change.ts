/**
 * The Slack face of governed policy: the proposed-change message (status first, one line per
 * difference, Approve / Reject for the admins), the notice of an invalid file, and the two
 * buttons. Who may decide and what a decision does are the governor's (src/policy/governance).
 */
import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Listeners } from '../../src/slack/listeners.js';
import { utcMinute } from '../../src/format/time.js';
import type { Outbox } from '../../src/outbox/index.js';
import type { PolicyGovernor } from '../../src/policy/governance/governor.js';
import type { PolicySource } from '../../src/policy/source.js';
import { POLICY_CHANGE_RENDERER, POLICY_PROBLEM_RENDERER } from '../../src/policy/governance/notices.js';
import type { PolicyProposal } from '../../src/policy/governance/types.js';
import { effectivePolicyChangeApprovals } from '../../src/policy/schema.js';
import { actions, context, header, packLines, section } from '../../src/slack/blocks.js';
import { outside } from '../../src/format/outside.js';
import { guarded } from '../../src/slack/guard.js';
import type { CommandDeps } from '../deps.js';

export const POLICY_ACTIONS = { approve: 'policy_change_approve', reject: 'policy_change_reject' } as const;

const people = (ids: readonly string[]) => ids.map((u) => `<@${u}>`).join(', ');

/** "⏳ Waiting for 2 admin approvals (1 so far: @erin)" and the like: the status line of a change. */
export function proposalStatus(p: PolicyProposal, required: number): string {
  const so = p.approvals.length ? ` (approved so far by ${people(p.approvals.map((a) => a.user))})` : '';
  switch (p.state) {
    case 'pending':
      return `⏳ Waiting for ${required} admin approval${required === 1 ? '' : 's'}${so}`;
    case 'applied':
      return `✅ Applied ${utcMinute(p.appliedAt)}, approved by ${people(p.approvals.map((a) => a.user))}`;
    case 'rejected':
      return `⛔ Rejected by ${people([p.rejection?.user ?? ''])} ${utcMinute(p.rejection?.at)}; the policy in force is unchanged`;
    case 'superseded':
      return `↪️ Replaced: ${p.superseded?.reason ?? 'a newer version of the file'}; this version will not be applied`;
  }
}

/**
 * The difference lines in at most 44 blocks (the header, status, footer and buttons need the
 * rest of Slack's 50). Lines that do not fit are counted, never silently dropped: an admin must
 * know there is more before approving.
 */
function differenceBlocks(lines: string[]) {
  const packed = packLines(lines);
  if (packed.length <= 44) return packed;
  const shown = packed.slice(0, 43);
  const shownLines = shown.reduce(
    (n, b) => n + ('text' in b && b.text && typeof b.text !== 'string' ? b.text.text.split('\n').length : 0),
    0,
  );
  const hidden = lines.length - shownLines;
  return [
    ...shown,
    section(
      `*…and ${hidden} more difference${hidden === 1 ? '' : 's'} not shown here.* Compare the file with \`/treasury policy\` before approving.`,
    ),
  ];
}

/** The change as the approvals channel shows it, drawn from the stored proposal when sent. */
export function renderProposal(p: PolicyProposal, required: number) {
  const status = proposalStatus(p, required);
  const lines = p.lines.length
    ? p.lines.map((l) => `• ${l}`)
    : ['• (no difference in the rules: only the file changed)'];
  const blocks = [
    header('Treasury policy change'),
    section(`*${status}*`),
    ...differenceBlocks(lines),
    context(
      `Proposed ${utcMinute(p.proposedAt)} from the policy file. Nothing changes until ${required} admin${required === 1 ? '' : 's'} of the policy in force approve; any admin can reject.`,
    ),
    ...(p.state === 'pending'
      ? [
          actions('policy_change', [
            { text: 'Approve', actionId: POLICY_ACTIONS.approve, value: p.id, style: 'primary' },
            { text: 'Reject', actionId: POLICY_ACTIONS.reject, value: p.id, style: 'danger' },
          ]),
        ]
      : []),
  ];
  return { text: `Treasury policy change · ${status}`, blocks };
}

/**
 * An unusable file, as the admins are told: every problem on its own line, none cut to a single
 * line's length (a problem ends with the key that was meant: "did you mean daily_limit?").
 */
export function renderProblem(error: string, at: string) {
  const intro =
    ':warning: The treasury policy file was changed but cannot be used, so nothing changed: the policy in force stays as it was. Fix the file and save it again.';
  const [first = '', ...problems] = error.split('\n');
  const lines = [outside(first), ...problems.map((l) => `• ${outside(l.replace(/^\s*-\s*/, ''), 500)}`)];
  return {
    text: `${intro}\n${lines.join('\n')}`,
    blocks: [section(intro), ...packLines(lines), context(`Read ${utcMinute(at)}.`)],
  };
}

export function registerPolicyChangeRenderers(outbox: Outbox, governor: PolicyGovernor, policy: PolicySource): void {
  outbox.registerRenderer(POLICY_CHANGE_RENDERER, (ref) => {
    const p = governor.proposal(ref);
    return p ? renderProposal(p, effectivePolicyChangeApprovals(policy.current())) : null;
  });
  outbox.registerRenderer(POLICY_PROBLEM_RENDERER, (ref) => {
    const problem = governor.problem(ref);
    return problem ? renderProblem(problem.error, problem.at) : null;
  });
}

type ButtonArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'ack' | 'body' | 'action' | 'respond'>;

function decision(deps: CommandDeps, kind: 'approve' | 'reject') {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    await guarded(deps.logger, respond, 'The policy change decision', async () => {
      const gov = deps.policyGovernance;
      const r = await (kind === 'approve' ? gov.approve : gov.reject)(action.value ?? '', body.user.id);
      const text = !r.ok
        ? `:no_entry: ${r.message}`
        : kind === 'reject'
          ? ':white_check_mark: You rejected the policy change; the policy in force is unchanged.'
          : r.applied
            ? ':white_check_mark: Your approval completed the quorum: the new policy is in force.'
            : ':white_check_mark: Your approval is recorded; the change needs another admin.';
      await respond({ response_type: 'ephemeral', replace_original: false, text });
    });
  };
}

export function registerPolicyChangeActions(app: Listeners, deps: CommandDeps): void {
  app.action<BlockAction<ButtonAction>>(POLICY_ACTIONS.approve, decision(deps, 'approve'));
  app.action<BlockAction<ButtonAction>>(POLICY_ACTIONS.reject, decision(deps, 'reject'));
}

/** For `/treasury policy`: since when the policy is in force and who approved it, and the pending change, if any. */
export function governanceBlocks(deps: Pick<CommandDeps, 'policyGovernance' | 'policy'>) {
  const gov = deps.policyGovernance;
  const inForce = gov.inForce();
  if (!inForce) return [];
  const by = inForce.approvedBy.includes('system')
    ? 'accepted as the first policy loaded'
    : `approved by ${people(inForce.approvedBy)}`;
  const out = [context(`In force since ${utcMinute(inForce.approvedAt)}, ${by}.`)];
  const p = gov.pending();
  if (p) {
    const lines = p.lines.map((l) => `• ${l}`);
    out.push(
      section(
        `*Pending change* (proposed ${utcMinute(p.proposedAt)}): ${proposalStatus(p, effectivePolicyChangeApprovals(deps.policy.current()))}`,
      ),
      ...packLines(
        lines.length > 15
          ? [...lines.slice(0, 15), `…and ${lines.length - 15} more on the message in the approvals channel`]
          : lines,
      ),
    );
  }
  return out;
}
