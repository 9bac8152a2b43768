/** The batch message renderer: what a person sees, and Slack's limits whatever the lines hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/index.js';
import { WALLET_URL_MAX, walletLink } from '../../src/alerts/links.js';
import { batchCapacity, batchLine, renderAlertBatch } from '../../src/slack/alert-messages.js';

function alert(i: number, o: Partial<Alert> = {}): Alert {
  return {
    id: `a${i}`,
    kind: 'deposit',
    status: 'PENDING',
    hash: `0x${i.toString(16).padStart(64, '0')}`,
    amount: `${i}.5`,
    currency: 'USDT',
    network: 'BSC',
    clientEmail: `client${i}@example.com`,
    channel: 'C0ALERTS',
    mention: false,
    source: 'webhook',
    // Confirmed by the wallet's history unless a test says otherwise: these tests are about the format.
    verification: { state: 'confirmed', attempts: 0 },
    history: [],
    messageKey: `alert:a${i}`,
    createdAt: 0,
    updatedAt: 0,
    ...o,
  };
}

type Block = { type: string; text?: { text: string } };
const within = (m: { blocks: unknown[]; text: string }) => {
  const blocks = m.blocks as Block[];
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const b of blocks) if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(b.type === 'header' ? 150 : 3000);
  expect(blocks.reduce((n, b) => n + (b.text?.text.length ?? 0), 0)).toBeLessThanOrEqual(12_500);
  expect(m.text.length).toBeLessThanOrEqual(40_000);
};

describe('batch message', () => {
  it('a header with the count and the total per currency, then a compact line per transaction', () => {
    const m = renderAlertBatch([
      alert(1),
      alert(2, { currency: 'BTC', amount: '0.25', network: 'BITCOIN' }),
      alert(3, { status: 'CONFIRMED' }),
    ]);
    expect(m.text).toBe('3 deposits: 5.00 USDT, 0.25 BTC');
    const lines = (m.blocks[1] as Block).text!.text.split('\n');
    expect(lines).toEqual([
      `:hourglass_flowing_sand: *1.50 USDT* · BSC · client1@example.com · pending · <https://bscscan.com/tx/${alert(1).hash}|0x000000…000001>`,
      expect.stringMatching(/^:hourglass_flowing_sand: \*0\.25 BTC\* · BITCOIN · client2@example\.com · pending · /),
      `:white_check_mark: *3.50 USDT* · BSC · client3@example.com · confirmed · <https://bscscan.com/tx/${alert(3).hash}|0x000000…000003>`,
    ]);
    expect(batchLine(alert(4, { source: 'reconciliation' }))).toMatch(
      / · _found in the wallet's history, no notification received_$/,
    );
  });

  it("a batch of as many as fit stays within Slack's limits even after every line has grown to its final status", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            email: fc.option(fc.string({ minLength: 1, maxLength: 300 }), { nil: undefined }),
            hash: fc.option(fc.stringMatching(/^0x[0-9a-f]{8,128}$/), { nil: undefined }),
            amount: fc.option(fc.stringMatching(/^\d{1,40}(\.\d{1,30})?$/), { nil: undefined }),
            network: fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
          }),
          { minLength: 2, maxLength: 400 },
        ),
        (specs) => {
          const before = specs.map((s, i) =>
            alert(i, { clientEmail: s.email, hash: s.hash, amount: s.amount, network: s.network } as Partial<Alert>),
          );
          const n = batchCapacity(before);
          expect(n).toBeGreaterThanOrEqual(1);
          // Later: every line settled, verified with a long explorer link, missing details filled in.
          const after = before.slice(0, n).map((a, i) => ({
            ...a,
            status: i % 2 ? 'CONFIRMED' : 'NOT_PROPAGATED',
            hash: a.hash ?? `0x${'f'.repeat(64)}`,
            clientEmail: a.clientEmail ?? 'late-filled-client-address@some-long-domain.example.com',
            verification: {
              state: 'confirmed' as const,
              attempts: 1,
              hashUrl: `https://testnet.bscscan.com/tx/${'e'.repeat(66)}`,
            },
          }));
          const m = renderAlertBatch(after);
          within(m);
          // Nothing is cut: every line is still there.
          expect(
            (m.blocks as Block[]).filter((b) => b.type === 'section').flatMap((b) => b.text!.text.split('\n')),
          ).toHaveLength(n);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('wallet links of any length or kind, taken through walletLink before the batch is formed: still within the limits, nothing cut', () => {
    const walletUrl = fc.oneof(
      fc.constant(`https://explorer.example.com/tx/${'a'.repeat(WALLET_URL_MAX - 32)}`), // the longest taken
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc
        .string({ minLength: 150, maxLength: 3000 })
        .map((tail) => `https://explorer.example.com/tx/${encodeURIComponent(tail)}`),
      fc.string({ maxLength: 300 }),
      fc.constantFrom('javascript:alert(1)', 'https://x.example/a|b>c', 'ftp://files.example/tx'),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ url: walletUrl, network: fc.constantFrom('BSC', 'ETHEREUM', 'SOMECHAIN') }), {
          minLength: 2,
          maxLength: 300,
        }),
        (specs) => {
          const verified = specs.map((s, i) => {
            const hashUrl = walletLink(s.url);
            if (hashUrl !== undefined) {
              expect(hashUrl.length).toBeLessThanOrEqual(WALLET_URL_MAX);
              expect(hashUrl).toMatch(/^https?:\/\/[^\s<>|]+$/i);
            }
            return alert(i, {
              network: s.network,
              verification: { state: 'confirmed', attempts: 1, ...(hashUrl ? { hashUrl } : {}) },
            });
          });
          const n = batchCapacity(verified);
          const after = verified.slice(0, n).map((a, i) => ({ ...a, status: i % 2 ? 'CONFIRMED' : 'NOT_PROPAGATED' }));
          const m = renderAlertBatch(after);
          within(m);
          expect(
            (m.blocks as Block[]).filter((b) => b.type === 'section').flatMap((b) => b.text!.text.split('\n')),
          ).toHaveLength(n);
        },
      ),
      { numRuns: 60 },
    );
    // A URL that would break out of Slack's <url|text> or is not http(s) is refused outright.
    expect(walletLink('https://x.example/a|b')).toBeUndefined();
    expect(walletLink('javascript:alert(1)')).toBeUndefined();
    expect(walletLink(`https://x.example/${'a'.repeat(WALLET_URL_MAX)}`)).toBeUndefined();
    expect(walletLink(' https://bscscan.com/tx/0xab ')).toBe('https://bscscan.com/tx/0xab');
  });

  it('a typical deposit line is short enough for dozens per message', () => {
    const many = Array.from({ length: 1000 }, (_, i) => alert(i));
    const n = batchCapacity(many);
    expect(n).toBeGreaterThanOrEqual(50);
    within(renderAlertBatch(many.slice(0, n)));
  });
});
