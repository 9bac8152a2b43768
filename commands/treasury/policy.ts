/** `/treasury policy`: the policy in force, in words (admins). */
import { formatAmount } from '../../src/format/amount.js';
import { formatFiat } from '../../src/format/fiat.js';
import { networkWithStandard } from '../../src/format/network.js';
import { outside, outsideCode } from '../../src/format/outside.js';
import { header, mention, packLines, section, shorten } from '../../src/slack/blocks.js';
import { governanceBlocks } from './policy-change.js';
import type { VerbRun } from './verb.js';

/** What the allowlist's mode means for a request, in words. */
const ALLOWLIST_MODE: Record<'enforce' | 'warn' | 'off', string> = {
  enforce: 'enforce: only the destinations below can be paid; any other is refused',
  warn: 'warn: unlisted destinations are allowed, with a warning on the card',
  off: 'off: destinations are not checked',
};

export const policyVerb: VerbRun = {
  run: async ({ deps, respond }) => {
    const p = deps.policy.current();
    const who = (xs: string[]) => (xs.length ? xs.map((x) => mention(x, 'everyone')).join(', ') : 'nobody');
    const tiers = Object.entries(p.withdrawals.tiers)
      .map(([cur, ts]) => {
        // Tiers are ordered by max: each covers amounts above the previous one's max.
        let below: string | undefined;
        // The `default` tiers apply to every currency without its own: their amounts carry no unit.
        const unit = cur === 'default' ? undefined : cur;
        // `value` tiers are in USD: the fiat format.
        const amt = (a: string) => (cur === 'value' ? formatFiat(a) : formatAmount(a, unit));
        const steps = ts.map((t) => {
          const range = t.max ? `up to ${amt(t.max)}` : below ? `above ${amt(below)}` : 'any amount';
          below = t.max ?? below;
          return `${range}: ${t.approvals} approval${t.approvals > 1 ? 's' : ''}${t.must_include.length ? `, including ${who(t.must_include)}` : ''}`;
        });
        const name = cur === 'value' ? 'By value (every currency without its own)' : (unit ?? 'Any other currency');
        return `*${name}*: ${steps.join('; ')}`;
      })
      .join('\n');
    const limits =
      Object.entries(p.withdrawals.daily_limit)
        .map(([c, v]) => (c === 'value' ? `${formatFiat(v)} in value, every currency` : formatAmount(v, c)))
        .join(', ') || 'none';
    const perCurrency = (rec: Record<string, string>) =>
      Object.entries(rec)
        .map(([c, v]) =>
          c === 'default'
            ? `${formatAmount(v)} (any other currency)`
            : c === 'value'
              ? `${formatFiat(v)} in value`
              : formatAmount(v, c),
        )
        .join(', ') || 'none';
    const allow = p.withdrawals.allowlist;
    const listed = allow.addresses.map(
      (a) => `• ${outside(a.label)}: ${outsideCode(shorten(a.address, 8, 6))} on ${networkWithStandard(a.network)}`,
    );
    await respond({
      response_type: 'ephemeral',
      text: 'Treasury policy',
      blocks: [
        header('Treasury policy'),
        ...governanceBlocks(deps),
        section(`*Approvals channel* <#${p.channels.approvals}> · *Alerts channel* <#${p.channels.alerts}>`),
        section(
          `*Viewers* ${who(p.people.viewers)}\n*Requesters* ${who(p.people.requesters)}\n*Approvers* ${who(p.people.approvers)}\n*Admins* ${who(p.people.admins)}`,
        ),
        section(
          `*Approvals needed*\n${tiers}\n*Daily limits (rolling 24 h)* ${limits}\n*Requests expire after* ${Math.round(p.withdrawals.expires_after / 60_000)} min\n*Authenticator code needed to approve above* ${perCurrency(p.withdrawals.step_up_above)}\n*Low-balance alert below* ${perCurrency(p.alerts.low_balance)}`,
        ),
        section(
          `*Allowlist* (${ALLOWLIST_MODE[allow.mode]}; a newly approved address is usable ${allow.cooloff % 3_600_000 === 0 ? `${allow.cooloff / 3_600_000} h` : `${Math.round(allow.cooloff / 60_000)} min`} after its approval)`,
        ),
        // The view's other blocks are few: the rest of Slack's 50 is the list's.
        ...packLines(listed.length ? listed : ['_No addresses listed._']).slice(0, 40),
      ],
    });
  },
};
