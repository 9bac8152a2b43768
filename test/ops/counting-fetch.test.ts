/**
 * Slack Web API calls counted by outcome (src/metrics/sources.ts): the answer's own `ok` is read
 * once, and the caller still gets the same status, headers and body.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/registry.js';
import { countingFetch } from '../../src/metrics/sources.js';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-slack-req-id': 'r1' },
  });

async function counted(answer: () => Response, method = 'chat.postMessage') {
  const m = createMetrics();
  const fetch = countingFetch(m, async () => answer());
  const res = await fetch(`https://slack.test/api/${method}`, { method: 'POST', body: 'x=1' });
  const text = (await m.registry.metrics())
    .split('\n')
    .filter((l) => l.startsWith('treasury_slack_api_calls_total{'))
    .join('\n');
  return { res, text };
}

describe('Slack API calls counted by outcome', () => {
  it('ok: true is ok, and the caller reads the same answer', async () => {
    const { res, text } = await counted(() => json({ ok: true, ts: '1.2' }));
    expect(text).toContain('method="chat.postMessage",outcome="ok"} 1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-slack-req-id')).toBe('r1');
    expect(await res.json()).toEqual({ ok: true, ts: '1.2' });
  });

  it("Slack's ok: false is an error, its answer intact for the client to report", async () => {
    const { res, text } = await counted(() => json({ ok: false, error: 'channel_not_found' }));
    expect(text).toContain('outcome="error"} 1');
    expect(await res.json()).toEqual({ ok: false, error: 'channel_not_found' });
  });

  it('the rebuilt answer does not claim the wire encoding or length of the text it now holds', async () => {
    const { res } = await counted(
      () =>
        new Response(JSON.stringify({ ok: true }), {
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '999' },
        }),
    );
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.json()).toEqual({ ok: true });
  });

  it('a 429 is rate_limited and a 500 an error, passed on as they came', async () => {
    const limited = await counted(() => json({ ok: false }, 429));
    expect(limited.text).toContain('outcome="rate_limited"} 1');
    expect(limited.res.status).toBe(429);
    const failed = await counted(() => new Response('oops', { status: 500 }));
    expect(failed.text).toContain('outcome="error"} 1');
    expect(await failed.res.text()).toBe('oops');
  });

  it('an answer without a body (204) and one that is not JSON (an upload) count as ok', async () => {
    const empty = await counted(() => new Response(null, { status: 204 }));
    expect(empty.text).toContain('outcome="ok"} 1');
    expect(empty.res.status).toBe(204);
    const upload = await counted(() => new Response('OK - 1234', { status: 200 }), 'upload');
    expect(upload.text).toContain('outcome="ok"} 1');
    expect(await upload.res.text()).toBe('OK - 1234');
  });
});
