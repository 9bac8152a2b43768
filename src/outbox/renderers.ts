/**
 * Every renderer the app's messages name, in one typed registry. An outbox entry names its
 * renderer (the content is drawn when it is sent, never stored), so a name without a renderer
 * would fail only when such a message is sent, maybe days later. Here: `OutboxRequest.renderer`
 * and `registerRenderer` take a `RendererName` (a name nobody listed does not compile), and the
 * app checks at start, before the outbox sends anything, that each one is registered
 * (`Outbox.assertRenderers`). Adding a message kind: add its name here, then register it.
 */

/**
 * A burst summary: the outbox keeps its counts and draws it with the burst renderer the app
 * registers (`registerBurstRenderer`, src/slack/burst-summary.ts); no plain renderer takes this name.
 */
export const BURST_RENDERER = 'outbox.burst';
/** A file deletion (`op: 'delete_file'`) draws nothing. */
export const NO_RENDERER = 'none';

/** Each name the app registers, and where its words are. */
export const APP_RENDERERS = {
  'withdrawal.card': 'src/slack/withdrawal-notify.ts',
  'withdrawal.thread': 'src/slack/withdrawal-notify.ts',
  'withdrawal.dm': 'src/slack/withdrawal-notify.ts',
  'withdrawal.approver-dm': 'src/slack/withdrawal-notify.ts',
  'withdrawal.service-mismatch': 'src/slack/withdrawal-notify.ts',
  'withdrawal.approver-dm-now': 'src/slack/withdrawal-approver-dms.ts',
  'withdrawal.reminder-dm': 'src/slack/withdrawal-reminder.ts',
  'withdrawal.escalation': 'src/slack/escalation-words.ts',
  alert: 'src/slack/alert-messages.ts',
  'alert.status': 'src/slack/alert-messages.ts',
  'alert.batch': 'src/slack/alert-messages.ts (a batch renderer)',
  'alert.mention': 'src/slack/alert-messages.ts',
  'alert.unknown': 'src/slack/alert-messages.ts',
  'alert.history': 'src/slack/alert-messages.ts',
  'alert.trust': 'src/slack/alert-trust-messages.ts',
  'alert.flood': 'src/slack/alert-trust-messages.ts',
  'balances.low': 'src/balances/watch.ts',
  'digest.daily': 'src/slack/digest-message.ts',
  freeze_notice: 'src/slack/freeze-notice.ts',
  'stepup-notice': 'src/slack/step-up-notices.ts',
  'away-notice': 'src/slack/away-notices.ts',
  'passkey-notice': 'src/slack/passkey-notices.ts',
  verification_alert: 'src/slack/verification-notice.ts',
  'job-notice': 'src/slack/job-messages.ts',
  'screening-notice': 'src/slack/screening-notice.ts',
  'policy-change': 'commands/treasury/policy-change.ts',
  'policy-file-problem': 'commands/treasury/policy-change.ts',
  'webhook-rotated': 'commands/treasury/webhook-rotate.ts',
  'batch.card': 'src/slack/batch-notify.ts',
  'batch.result': 'src/slack/batch-notify.ts',
  'store.ceiling': 'src/slack/store-ceiling-words.ts',
} as const;

export type AppRendererName = keyof typeof APP_RENDERERS;
export type RendererName = AppRendererName | typeof BURST_RENDERER | typeof NO_RENDERER;

export const APP_RENDERER_NAMES = Object.keys(APP_RENDERERS) as AppRendererName[];

/** Throws, naming them, when any of `names` has no renderer (`registered` says which do). */
export function assertRegistered(names: readonly RendererName[], registered: (name: RendererName) => boolean): void {
  const missing = names.filter((n) => !registered(n));
  if (missing.length)
    throw new Error(
      `No renderer is registered for ${missing.join(', ')}: messages of ${missing.length > 1 ? 'these kinds' : 'this kind'} could not be sent (src/outbox/renderers.ts).`,
    );
}
