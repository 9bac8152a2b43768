/**
 * Issue 20, point 4, end to end: a webhook is a claim anyone who learns its URL can make. A
 * hostile Status, network and reference posted through the real route reach the fake Slack as
 * text: no live @channel, no link, no extra line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { depositSample, send, startPipeline, type Pipeline } from './setup.js';

const HOSTILE = '<!channel> <https://evil.example/login|Re-authorise your wallet>';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** Every text Slack would read as mrkdwn in a posted message: its `text` and its blocks' mrkdwn. */
function mrkdwnTexts(message: { text?: unknown; blocks?: unknown }): string[] {
  const out: string[] = typeof message.text === 'string' ? [message.text] : [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
      for (const x of Object.values(o)) walk(x);
    }
  };
  walk(message.blocks);
  return out;
}

describe('a hostile webhook', () => {
  it('its Status, network and reference reach Slack as text, never as a mention, a link or a line', async () => {
    p = await startPipeline();
    const body = depositSample({ status: HOSTILE, extra: { Reference: `ref\n• ${HOSTILE}` } }).replace(
      '"NetworkChain":"BSC"',
      `"NetworkChain":${JSON.stringify(HOSTILE)}`,
    );
    expect((await send(p.webhookUrl, body)).status).toBe(200);
    await p.outbox.drain();
    const posted = p.fake.calls('chat.postMessage');
    expect(posted.length).toBeGreaterThan(0);
    const shown = posted.flatMap((c) => mrkdwnTexts(c.args as { text?: unknown; blocks?: unknown }));
    expect(shown.join('\n')).toContain('evil'); // what was sent is still shown, as text
    for (const t of shown) {
      expect(t).not.toContain('<!channel>');
      expect(t).not.toMatch(/<https:\/\/evil/);
      expect(t).not.toMatch(/\n• <|\n• &lt;!channel/);
    }
  });
});
