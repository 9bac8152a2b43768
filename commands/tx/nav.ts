/** Previous/Next on a /tx page: the page is replaced in place. Runs behind `requireRole('viewers')`, which acks. */
import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { z } from 'zod';
import { guarded } from '../../src/slack/guard.js';
import { fromRaw } from '../../src/transactions/filters.js';
import type { CommandDeps } from '../deps.js';
import { showPage } from './page.js';
import { navValueSchema } from './render.js';

type TxNavArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'action' | 'respond'>;

export function txNav(deps: CommandDeps) {
  return async ({ action, respond }: TxNavArgs): Promise<void> => {
    await guarded(deps.logger, respond, 'Transaction lookup', async () => {
      let nav: z.infer<typeof navValueSchema>;
      try {
        nav = navValueSchema.parse(JSON.parse(action.value ?? ''));
      } catch {
        return void (await respond({
          replace_original: false,
          text: ':warning: That button is out of date; run `/tx` again.',
        }));
      }
      const parsed = fromRaw({ ...nav.f, page: String(nav.p) });
      if (!parsed.ok)
        return void (await respond({ replace_original: false, text: `:warning: ${parsed.errors.join('; ')}` }));
      await respond({ replace_original: true, ...(await showPage(deps, parsed.raw, parsed.query)) });
    });
  };
}
