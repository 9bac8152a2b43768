/**
 * `/treasury webhook rotate` (admins): a new webhook secret, so a leaked webhook URL stops
 * working. The old URL (and its verification URL) is accepted for a short overlap, then refused.
 * With WEBHOOK_SECRET configured the answer says how to rotate it in the environment instead.
 * Also the admins' notice of a rotation (rendered from what the rotation queued), and the
 * webhook line of `/treasury status`. No part of any secret is ever shown here.
 */
import { outside } from '../../src/format/outside.js';
import { z } from 'zod';
import { utcMinute } from '../../src/format/time.js';
import type { Outbox, Rendered } from '../../src/outbox/index.js';
import { context, mention, section } from '../../src/slack/blocks.js';
import { maskWebhookPaths, type WebhookRegistration } from '../../src/webhooks/registration.js';
import { ROTATION_OVERLAP_MS } from '../../src/webhooks/secrets.js';
import { WEBHOOK_ROTATED_RENDERER } from '../../src/webhooks/rotation.js';
import type { CommandDeps } from '../deps.js';
import type { VerbRun } from './verb.js';

const OVERLAP_MIN = Math.round(ROTATION_OVERLAP_MS / 60_000);

/** The URL as /treasury shows it: never any character of the secret. */
export const ROTATE_HINT = 'rotate with `/treasury webhook rotate`';

const DASHBOARD =
  "Paste the new verification URL (`/treasury verification-url`, shown only to you) into the wallet service's dashboard before the old one is refused, or withdrawals will not be verified.";

/** How to rotate a configured WEBHOOK_SECRET (nothing is rotated from Slack then). */
export const CONFIGURED_HOW =
  ':information_source: The webhook secret is set by `WEBHOOK_SECRET` in the app’s environment, so it is rotated there, not from Slack:\n' +
  '1. Put the current value in `WEBHOOK_SECRET_PREVIOUS` and a new one in `WEBHOOK_SECRET` (at least 24 letters, digits, `-` or `_`, e.g. `openssl rand -hex 24`).\n' +
  `2. Restart the app. It registers the new URL with the wallet service (when \`PUBLIC_URL\` is set) and accepts the old URL for ${OVERLAP_MIN} minutes after it first sees \`WEBHOOK_SECRET_PREVIOUS\`, then refuses it.\n` +
  "3. Paste the new verification URL (`/treasury verification-url`) into the wallet service's dashboard.\n" +
  '4. Remove `WEBHOOK_SECRET_PREVIOUS` once the overlap has ended.';

function registrationWords(r: WebhookRegistration): string {
  // No PUBLIC_URL: nothing the app could register; the admin gives the service the new URL.
  if (!r.ok && !r.shownUrl)
    return ':warning: `PUBLIC_URL` is not set, so the app cannot register the new URL: give it to the wallet service yourself (it is the verification URL without `/verify`).';
  return r.ok
    ? `:white_check_mark: The new URL is registered with the wallet service: ${outside(r.shownUrl)}.`
    : `:warning: The new URL could not be registered with the wallet service: ${outside(maskWebhookPaths(r.error ?? 'unknown error'), 300)}. ` +
        'Try again with `/treasury webhook register` before the old URL is refused (meanwhile missed notifications are caught up from the transaction list).';
}

export const webhookRotateVerb: VerbRun = {
  run: async ({ deps, respond, userId }) => {
    const r = await deps.webhookRotation.rotate(userId);
    if (r.kind === 'configured') return void (await respond({ response_type: 'ephemeral', text: CONFIGURED_HOW }));
    const text =
      `:key: Webhook secret rotated. The old webhook and verification URLs are accepted until ${utcMinute(r.until)}, then refused.\n` +
      `${registrationWords(r.registration)}\n${DASHBOARD}`;
    await respond({ response_type: 'ephemeral', text });
  },
};

/** Said when the registration record is of a secret that is no longer the current one. */
export const NOT_CURRENT =
  ':warning: The registered URL is not the current one, so the wallet service’s notifications are refused (now, or when the old URL’s overlap ends). Register it again with `/treasury webhook register`.';

/** The Webhook field of the admins' /treasury status. */
export function webhookStatusField(deps: CommandDeps, hook: WebhookRegistration | undefined): string {
  const until = deps.webhookRotation.overlapUntil();
  const overlap = until
    ? `\n:hourglass: The URL before the last rotation is still accepted until ${utcMinute(until)}.`
    : '';
  const stale = hook && !deps.webhookRotation.isCurrent(hook) ? `\n${NOT_CURRENT}` : '';
  const line = !hook
    ? deps.config.publicUrl
      ? ':grey_question: not registered yet'
      : ':white_circle: not registered (PUBLIC_URL is not set)'
    : hook.ok
      ? `:large_green_circle: ${outside(hook.shownUrl)}, registered ${utcMinute(Date.parse(hook.at))} (${ROTATE_HINT})`
      : `:red_circle: registration failed ${utcMinute(Date.parse(hook.at))}: ${outside(maskWebhookPaths(hook.error ?? ''), 300)}`;
  return `${line}${stale}${overlap}`;
}

const noticeSchema = z.object({
  by: z.string(),
  at: z.number(),
  until: z.number(),
  mention: z.array(z.string()).optional(),
});

export function renderRotationNotice(ref: string): Rendered | null {
  let n: z.infer<typeof noticeSchema>;
  try {
    n = noticeSchema.parse(JSON.parse(ref));
  } catch {
    return null;
  }
  const who = n.mention?.length ? `${n.mention.map((m) => mention(m)).join(' ')} ` : '';
  const text =
    `${who}:key: <@${n.by}> rotated the webhook secret at ${utcMinute(n.at)}: the wallet service gets a new URL, ` +
    `and the old webhook and verification URLs are refused after ${utcMinute(n.until)}.`;
  return {
    text,
    blocks: [section(text), context(DASHBOARD)],
  };
}

/** Call before `outbox.start()` (an entry with no renderer is parked). */
export function registerWebhookRotationRenderer(outbox: Pick<Outbox, 'registerRenderer'>): void {
  outbox.registerRenderer(WEBHOOK_ROTATED_RENDERER, (ref) => renderRotationNotice(ref));
}
