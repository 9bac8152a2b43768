/**
 * What people are told about passkeys, drawn by the outbox from the notice records the passkey
 * service writes in the same commit as the change: the set-up link to the person by DM (drawn
 * from its sealed record, so a crash re-sends the same link), a new passkey to the admins (a
 * hijacked Slack account could enrol a key of its own), a removal to the admins and to the person
 * by DM (or it could remove the owner's unseen), a revocation to the person by DM.
 */
import type { Outbox, OutboxRequest } from '../outbox/index.js';
import { PASSKEY_NOTICES, type PasskeyNotice } from '../passkeys/index.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import type { Store, Tx } from '../store/index.js';
import { mention } from './blocks.js';
import { outside } from '../format/outside.js';

export const PASSKEY_NOTICE_RENDERER = 'passkey-notice';

const utcTime = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function renderPasskeyNotice(
  n: PasskeyNotice,
  policy: Policy,
  linkUrl: (id: string) => string | undefined,
): { text: string } | null {
  if (n.kind === 'link') {
    const url = n.link && linkUrl(n.link);
    if (!url) return null;
    return {
      text:
        `:key: Your link to set up a passkey or security key for approving large withdrawals (it works once, for 15 minutes): <${url}|set up a passkey>\n` +
        'Open it in your system browser (Safari, Chrome, Edge or Firefox): some in-app browsers cannot use passkeys. ' +
        'If you did not ask for it, ignore it and tell an admin.',
    };
  }
  const named = n.name ? ` (“${outside(n.name, 40)}”)` : '';
  if (n.kind === 'enrolled' || n.kind === 'removed') {
    const others = policy.people.admins
      .filter((a) => a !== n.user)
      .map((a) => mention(a))
      .join(' ');
    const text =
      n.kind === 'enrolled'
        ? `:key: <@${n.user}> set up a passkey${named} for approving large withdrawals (${utcTime(n.at)}). ` +
          'If they did not, their Slack account may be in someone else’s hands: revoke it with `/treasury passkey revoke @person` and check their account.'
        : `:key: <@${n.user}> removed their passkey${named} for approving large withdrawals (${utcTime(n.at)}). ` +
          'If they did not, their Slack account may be in someone else’s hands: check their account.';
    return { text: text + (others ? ` ${others}` : '') };
  }
  if (n.kind === 'removed_dm')
    return {
      text:
        `:key: Your passkey${named} for approving large withdrawals was removed (${utcTime(n.at)}): it no longer works. ` +
        'If you did not remove it, tell an admin now: someone may be using your Slack account.',
    };
  return {
    text:
      `:key: <@${n.by}> revoked your passkeys for approving large withdrawals: they no longer work. ` +
      'Type `/treasury passkey` to set one up again. If you did not ask for this, tell another admin.',
  };
}

export function passkeyNoticeRequest(n: PasskeyNotice, policy: Policy): OutboxRequest {
  return n.kind === 'enrolled' || n.kind === 'removed'
    ? { op: 'post', renderer: PASSKEY_NOTICE_RENDERER, ref: n.id, channel: policy.channels.alerts }
    : { op: 'dm', renderer: PASSKEY_NOTICE_RENDERER, ref: n.id, user: n.user };
}

/** Registers the renderer and returns the service's `notify` (the policy read at the moment of use). */
export function passkeyNotices(o: {
  outbox: Outbox;
  store: Store;
  policy: PolicySource;
  linkUrl: (linkId: string) => string | undefined;
}) {
  o.outbox.registerRenderer(PASSKEY_NOTICE_RENDERER, (ref) => {
    const n = o.store.get(PASSKEY_NOTICES, ref);
    return n ? renderPasskeyNotice(n, o.policy.current(), o.linkUrl) : null;
  });
  return (tx: Tx, n: PasskeyNotice): void => void o.outbox.enqueue(tx, passkeyNoticeRequest(n, o.policy.current()));
}
