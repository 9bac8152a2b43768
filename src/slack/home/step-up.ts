/**
 * Setting up authenticator codes from the App Home. The button opens a modal at once (the
 * trigger_id lasts 3 s) with the key as text for manual entry, then the QR code of the
 * otpauth:// URI is uploaded WITHOUT sharing it to any channel and shown in the same modal as
 * an image block (`slack_file`). Typing a first valid code confirms it; only then do the codes
 * count. The QR image is deleted once the set-up is confirmed or abandoned (the modal closed).
 * The key and the URI exist only in this person's modal: never logged, never posted.
 */
import type {
  App,
  BlockAction,
  ButtonAction,
  SlackViewMiddlewareArgs,
  ViewClosedAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Listeners } from '../listeners.js';
import type { KnownBlock, View } from '@slack/types';
import QRCode from 'qrcode';
import { thresholdAmount } from '../../format/fiat.js';
import { hasRole } from '../../policy/people.js';
import { actions, context, section } from '../blocks.js';
import { outside } from '../../format/outside.js';
import { groupedSecret } from '../../stepup/index.js';
import type { CommandDeps } from '../deps.js';
import { codeSchema, INVALID_CODE } from '../step-up-approve.js';

type Client = App['client'];
type Publish = (client: Client, user: string, notice?: string) => Promise<void>;

export const STEPUP_ENROL = 'home_stepup_enrol';
export const ENROL_VIEW = 'stepup_enrol';
const ENROL_BLOCK = 'stepup_enrol_code';
const ENROL_ACTION = 'code';
const QR_BLOCK = 'stepup_qr';

/** "above 10,000.00 USDT, above $10,000.00 in value": the policy's step_up_above in words. */
function thresholdWords(deps: CommandDeps): string | undefined {
  const above = deps.policy.current().withdrawals.step_up_above;
  const parts = Object.entries(above).map(([key, amount]) => `above ${thresholdAmount(key, amount)}`);
  return parts.length ? parts.join(', ') : undefined;
}

/** The Home tab's section about codes: for approvers, when the policy asks for codes at all. */
export async function stepUpHomeBlocks(deps: CommandDeps, user: string): Promise<KnownBlock[]> {
  const words = thresholdWords(deps);
  if (!words || !(await hasRole(deps.policy.current(), 'approvers', user, deps.groups))) return [];
  const status = deps.stepUp.status(user);
  if (status.state === 'active') {
    const locked =
      status.lockedUntil !== undefined
        ? ` :lock: Locked after five wrong codes until ${new Date(status.lockedUntil).toISOString().slice(11, 16)} UTC.`
        : '';
    return [
      context(
        `:key: Authenticator codes are set up: approving withdrawals ${outside(words)} asks for one.${locked} New phone? Ask an admin to reset them.`,
      ),
    ];
  }
  return [
    section(
      `*Authenticator codes*\nApproving withdrawals ${outside(words)} needs a 6-digit code from an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password…). Set it up once here.`,
    ),
    actions('home_stepup', [
      { text: 'Set up authenticator codes', actionId: STEPUP_ENROL, value: 'enrol', style: 'primary' },
    ]),
  ];
}

function enrolView(secret: string, qrFileId?: string): View {
  const grouped = groupedSecret(secret);
  const blocks: KnownBlock[] = [
    section(
      '1. Open your authenticator app and add an account by scanning this QR code.\n' +
        `2. Or type this key by hand (account “Treasury”, time-based): \`${grouped}\``,
    ),
    qrFileId
      ? {
          type: 'image',
          block_id: QR_BLOCK,
          slack_file: { id: qrFileId },
          alt_text: 'QR code to scan with your authenticator app',
        }
      : context('_The QR code is being prepared…_'),
    section(
      'Keep this to yourself: anyone with this key can make your codes. Nobody from the treasury team will ask for it.',
    ),
    {
      type: 'input',
      block_id: ENROL_BLOCK,
      label: { type: 'plain_text', text: '3. Type the 6-digit code the app now shows' },
      element: { type: 'plain_text_input', action_id: ENROL_ACTION, max_length: 12 },
    },
  ];
  return {
    type: 'modal',
    callback_id: ENROL_VIEW,
    // Told when it is closed unconfirmed, so the pending set-up and its QR image are removed.
    notify_on_close: true,
    title: { type: 'plain_text', text: 'Authenticator codes' },
    submit: { type: 'plain_text', text: 'Confirm' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** The QR code uploaded to no channel (only the app can show it, in this modal), then shown in the modal. */
async function showQr(
  deps: CommandDeps,
  client: Client,
  user: string,
  viewId: string,
  begun: { secret: string; uri: string; attempt: string },
) {
  const { secret, uri } = begun;
  let fileId: string | undefined;
  try {
    const png = await QRCode.toBuffer(uri, { type: 'png', margin: 2, width: 240 });
    const res = (await client.files.uploadV2({
      file: png,
      filename: 'authenticator.png',
      title: 'Authenticator QR code',
    })) as {
      files?: Array<{ files?: Array<{ id?: string }> }>;
    };
    fileId = res.files?.[0]?.files?.[0]?.id;
    if (!fileId) return;
    // No longer pending (confirmed or closed meanwhile): the service has the image deleted.
    if (!(await deps.stepUp.attachQr(user, begun.attempt, fileId))) return;
    await client.views.update({ view_id: viewId, view: enrolView(secret, fileId) });
  } catch (err) {
    // The key is in the modal as text: the set-up still works without the image.
    deps.logger.warn({ err }, 'could not show the authenticator QR code; the key is shown as text');
  }
}

export function stepUpEnrolClicked(deps: CommandDeps, publish: Publish) {
  return async ({
    ack,
    body,
    client,
  }: {
    ack: () => Promise<void>;
    body: BlockAction<ButtonAction>;
    client: Client;
  }): Promise<void> => {
    await ack();
    const user = body.user.id;
    try {
      if (!(await hasRole(deps.policy.current(), 'approvers', user, deps.groups)))
        return await publish(client, user, ':no_entry: Only approvers set up authenticator codes.');
      const begun = await deps.stepUp.begin(user);
      if (!begun.ok) return await publish(client, user, `:information_source: ${outside(begun.message)}`);
      const opened = await client.views.open({ trigger_id: body.trigger_id, view: enrolView(begun.secret) });
      if (opened.view?.id) await showQr(deps, client, user, opened.view.id, begun);
    } catch (err) {
      deps.logger.error({ err }, 'starting the authenticator set-up failed');
      await publish(client, user, ':warning: Something went wrong on our side; nothing was set up. Try again.');
    }
  };
}

export function stepUpEnrolSubmitted(deps: CommandDeps, publish: Publish) {
  return async ({
    ack,
    body,
    view,
    client,
  }: Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'> & { client: Client }): Promise<void> => {
    const user = body.user.id;
    const inline = (text: string) => ack({ response_action: 'errors', errors: { [ENROL_BLOCK]: text.slice(0, 2000) } });
    try {
      const code = codeSchema.safeParse(view.state.values[ENROL_BLOCK]?.[ENROL_ACTION]?.value ?? '');
      if (!code.success) return await inline(INVALID_CODE);
      const done = await deps.stepUp.confirm(user, code.data);
      if (!done.ok) return await inline(done.message);
      await ack();
      await publish(
        client,
        user,
        ':white_check_mark: Authenticator codes are set up. Large withdrawals will ask for a code when you approve them.',
      );
    } catch (err) {
      deps.logger.error({ err }, 'confirming the authenticator set-up failed');
      await inline('Something went wrong on our side; nothing was set up. Try again.');
    }
  };
}

export function stepUpEnrolClosed(deps: CommandDeps) {
  return async ({ ack, body }: Pick<SlackViewMiddlewareArgs<ViewClosedAction>, 'ack' | 'body'>): Promise<void> => {
    await ack();
    try {
      await deps.stepUp.abandon(body.user.id);
    } catch (err) {
      deps.logger.warn({ err }, 'dropping an abandoned authenticator set-up failed');
    }
  };
}

export function registerStepUpHome(app: Listeners, deps: CommandDeps, publish: Publish): void {
  app.action<BlockAction<ButtonAction>>(STEPUP_ENROL, stepUpEnrolClicked(deps, publish));
  app.view<ViewSubmitAction>({ callback_id: ENROL_VIEW, type: 'view_submission' }, stepUpEnrolSubmitted(deps, publish));
  app.view<ViewClosedAction>({ callback_id: ENROL_VIEW, type: 'view_closed' }, stepUpEnrolClosed(deps));
}
