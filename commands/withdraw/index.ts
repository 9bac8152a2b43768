import type { BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { Listeners } from '../../src/slack/listeners.js';
import { roleMiddleware } from '../../src/slack/roles.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { CommandDeps } from '../deps.js';
import { approve } from './approve.js';
import { withdrawCommand } from './command.js';
import { VIEWS } from './modals.js';
import { reject } from './reject.js';
import { rejectSubmitted } from './reject-submitted.js';
import { requestSubmitted } from './request-submitted.js';
import { resolve } from './resolve.js';
import { resolveSubmitted } from './resolve-submitted.js';
import { PASSKEY_BUTTON, STEP_UP_VIEW } from '../../src/slack/step-up-approve.js';
import { stepUpSubmitted } from './step-up-submitted.js';
import { newRequest } from './new-request.js';
import { holdButton, holdSubmitted } from './hold.js';
import { PREVIEW_ACTION, valuePreview } from './value-preview.js';
import { BATCH_VIEW, batchButton, batchStepUpSubmitted, batchSubmitted } from './batch.js';
import { BATCH_STEP_UP_VIEW } from '../../src/slack/batch/step-up.js';
import { BATCH_ACTIONS } from '../../src/slack/batch/card.js';

export function register(app: Listeners, deps: CommandDeps): void {
  const requireRole = roleMiddleware(deps);
  app.command('/withdraw', requireRole('requesters'), withdrawCommand(deps));
  app.view<ViewSubmitAction>(VIEWS.request, requestSubmitted(deps));
  app.action<BlockAction<ButtonAction>>(ACTIONS.approve, approve(deps));
  app.action<BlockAction<ButtonAction>>(ACTIONS.reject, reject(deps));
  app.view<ViewSubmitAction>(VIEWS.reject, rejectSubmitted(deps));
  app.action<BlockAction<ButtonAction>>(ACTIONS.resolveSent, requireRole('admins'), resolve(deps, 'sent'));
  app.action<BlockAction<ButtonAction>>(ACTIONS.resolveNotSent, requireRole('admins'), resolve(deps, 'not_sent'));
  app.view<ViewSubmitAction>(VIEWS.resolve, resolveSubmitted(deps));
  app.view<ViewSubmitAction>(STEP_UP_VIEW, stepUpSubmitted(deps));
  // "Confirm with your passkey" is a link button: the browser opens the page; Slack still sends the click, acked here.
  app.action<BlockAction<ButtonAction>>(PASSKEY_BUTTON, async ({ ack }) => {
    await ack();
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.newRequest, requireRole('requesters'), newRequest(deps));
  app.action<BlockAction<ButtonAction>>(ACTIONS.holdRelease, requireRole('admins'), holdButton(deps, 'release'));
  app.action<BlockAction<ButtonAction>>(ACTIONS.holdReject, requireRole('admins'), holdButton(deps, 'reject'));
  app.view<ViewSubmitAction>(VIEWS.hold, holdSubmitted(deps));
  // The form's value line, as the amount or currency changes (no role check: it shows a value, decides nothing).
  app.action<BlockAction>(PREVIEW_ACTION, valuePreview(deps));
  // Batch payouts: the form, and the card's buttons (whether this person may is the batch service's decision).
  app.view<ViewSubmitAction>(BATCH_VIEW, batchSubmitted(deps));
  app.action<BlockAction<ButtonAction>>(BATCH_ACTIONS.approve, batchButton(deps, 'approve'));
  app.view<ViewSubmitAction>(BATCH_STEP_UP_VIEW, batchStepUpSubmitted(deps));
  app.action<BlockAction<ButtonAction>>(BATCH_ACTIONS.reject, batchButton(deps, 'reject'));
  app.action<BlockAction<ButtonAction>>(BATCH_ACTIONS.stop, requireRole('admins'), batchButton(deps, 'stop'));
}
