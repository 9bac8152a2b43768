/**
 * Issue 20, point 4: text from outside (service statuses, messages, references, network and
 * currency names, client e-mails, notes, labels, error texts) can never add a mention, a link,
 * a channel reference or a line to any message. Every message kind is rendered by its pure
 * function twice: once with an ordinary word ("x") in every outside field, once with arbitrary
 * hostile strings; the hostile rendering may hold no more `<!`, `<@`, `<#`, `<http` and no more
 * lines than the ordinary one (what the template itself puts there).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/types.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import type { Digest } from '../../src/digest/types.js';
import { decideFreeze } from '../../src/freeze/decide.js';
import type { FreezeRecord } from '../../src/freeze/state.js';
import { describePolicyChange } from '../../src/slack/policy-change-words.js';
import type { Policy } from '../../src/policy/schema.js';
import { batchLine, renderAlert, renderAlertBatch, renderStatusChange } from '../../src/slack/alert-messages.js';
import { renderFreezeNotice } from '../../src/slack/freeze-notice.js';
import { balanceLines } from '../../src/slack/home/balances.js';
import { renderVerificationAlert } from '../../src/slack/verification-notice.js';
import { auditRowText } from '../../src/slack/audit-words.js';
import {
  renderApproverDm,
  renderCard,
  renderDm,
  renderThread,
  type CardFacts,
} from '../../src/slack/withdrawal/index.js';
import type { VerificationAlert } from '../../src/verification/alerts.js';
import type { TransactionPage, TransactionRecord } from '../../src/wallet/schemas.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { newRequest } from '../helpers/withdrawal-request.js';
import { renderPage } from '../../commands/tx/render.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';
import { hostileString, pure } from './config.js';

const policy = testPolicy();

/**
 * Every text a message shows: its `text`, and every `text` inside its blocks. `plain`: a
 * plain_text object (headers, buttons), where Slack shows `<!channel>` as the characters it is.
 */
function shown(message: unknown): Array<{ text: string; plain: boolean }> {
  const out: Array<{ text: string; plain: boolean }> = [];
  const walk = (v: unknown, key?: string, plain = false) => {
    if (typeof v === 'string') {
      if (key === 'text') out.push({ text: v, plain });
    } else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') {
      const isPlain = (v as { type?: unknown }).type === 'plain_text';
      for (const [k, x] of Object.entries(v)) walk(x, k, isPlain);
    }
  };
  walk(typeof message === 'string' ? { text: message } : message);
  return out;
}

/** The texts Slack reads as mrkdwn (a message's `text` included: notifications render it). */
const texts = (message: unknown) =>
  shown(message)
    .filter((t) => !t.plain)
    .map((t) => t.text);

const MARKUP = ['<!', '<@', '<#', '<http'] as const;

/** What a rendering carries that outside text must never add: markup of each kind, and lines. */
function shape(message: unknown): Record<string, number> {
  const mrkdwn = texts(message);
  const count = (needle: string) => mrkdwn.reduce((n, t) => n + t.split(needle).length - 1, 0);
  return {
    ...Object.fromEntries(MARKUP.map((m) => [m, count(m)])),
    // Lines of every text, plain ones included (a header is one line too).
    lines: shown(message).reduce((n, t) => n + t.text.split('\n').length, 0),
  };
}

/** The hostile rendering holds no more markup and no more lines than the ordinary one. */
function expectNoMore(kind: string, hostile: unknown, ordinary: unknown): void {
  const h = shape(hostile);
  const o = shape(ordinary);
  for (const k of Object.keys(h)) expect(h[k], `${kind}: ${k}`).toBeLessThanOrEqual(o[k]!);
}

/** Outside text: hostile pieces, and the issue's own examples, joined. */
const ATTACKS = [
  '<!channel> <https://evil.example/login|Re-authorise your wallet>',
  '<@U0ERIN> <#C0ALERTS>',
  'Exchange\n• Approved by CFO',
  'a\u2028b\r\nc',
  '&lt;!here&gt;',
  '`<!here>`',
  '*bold* _it_ ~s~',
];
const outsideText = fc.oneof(
  hostileString.filter((s) => s.length < 3_000),
  fc.constantFrom(...ATTACKS),
  fc.array(fc.constantFrom(...ATTACKS, ' ', '\n', 'x'), { minLength: 1, maxLength: 6 }).map((a) => a.join('')),
);

/** One outside text per field a message shows. */
const fields: fc.Arbitrary<Fields> = fc.record({
  status: outsideText,
  network: outsideText,
  currency: outsideText,
  email: outsideText,
  reference: outsideText,
  address: outsideText,
  hash: outsideText,
  message: outsideText,
  note: outsideText,
  label: outsideText,
  typeName: outsideText,
  amount: fc.oneof(outsideText, fc.constant('12.5')),
});
type Fields = Record<
  | 'status'
  | 'network'
  | 'currency'
  | 'email'
  | 'reference'
  | 'address'
  | 'hash'
  | 'message'
  | 'note'
  | 'label'
  | 'typeName'
  | 'amount',
  string
>;
const ORDINARY: Fields = {
  status: 'x',
  network: 'x',
  currency: 'x',
  email: 'x',
  reference: 'x',
  address: 'x',
  hash: 'x',
  message: 'x',
  note: 'x',
  label: 'x',
  typeName: 'x',
  amount: '12.5',
};

// ------------------------------------------------------------------ the message kinds

function alert(f: Fields): Alert {
  return {
    id: 'a1',
    kind: 'deposit',
    typeName: f.typeName,
    status: f.status,
    hash: f.hash,
    amount: f.amount,
    charge: f.amount,
    currency: f.currency,
    network: f.network,
    clientEmail: f.email,
    receiveAddress: f.address,
    depositAddress: f.address,
    reference: f.reference,
    channel: 'C0ALERTS',
    mention: true,
    source: 'webhook',
    verification: { state: 'confirmed', attempts: 1, hashUrl: 'https://bscscan.com/tx/0xabc' },
    history: [],
    messageKey: 'alert:a1',
    createdAt: T0,
    updatedAt: T0,
  };
}

function alertMessages(f: Fields): unknown[] {
  const a = alert(f);
  const unknown: Alert = { ...a, kind: 'unknown', extra: { [f.label]: f.message, note: f.note } };
  return [
    renderAlert(a),
    renderAlert(unknown),
    batchLine(a),
    renderAlertBatch([a, unknown]),
    renderStatusChange(a, { status: f.status, at: T0, source: 'webhook', applied: true, eventId: 'e1' }),
  ];
}

const baseRequest: WithdrawalRequest = newRequest({ policy, input: usdt('250'), now: T0 });

/** The request as it would be once outside text reached every field the card shows. */
function request(f: Fields, state: WithdrawalRequest['state']): WithdrawalRequest {
  return {
    ...baseRequest,
    state,
    clientEmail: f.email,
    destination: f.address,
    note: f.note,
    allowlist: { ...baseRequest.allowlist, status: 'listed', label: f.label },
    error: { kind: 'rejected', message: f.message },
    rejection: { by: 'U0CAROL', at: T0, reason: f.message },
    unknownReason: f.message,
    resolution: { outcome: 'sent', by: 'U0ERIN', at: T0, note: f.note },
    confirmation: { status: f.status, transactionHash: f.hash, at: T0 },
    result: { ...(baseRequest.result ?? {}), serviceReference: f.reference, mismatches: [f.message] },
  } as unknown as WithdrawalRequest;
}

const facts: CardFacts = { dailyUsage: (currency) => ({ currency, used: '0', limit: null, remaining: null }) };
const pointer = () => ({ channel: 'C0APPROVALS', permalink: 'https://acme.slack.com/archives/C0APPROVALS/p1' });

function withdrawalMessages(f: Fields): unknown[] {
  const out: unknown[] = [];
  for (const state of ['pending', 'failed', 'rejected', 'unknown', 'completed'] as const) {
    const r = request(f, state);
    const get = () => r;
    out.push(renderCard(r, facts, 'mainnet', { by: 'U0ERIN', reason: f.message }));
    // Thread refs as src/slack/withdrawal-notify.ts writes them: the service's status (encoded), then our mentions.
    for (const kind of ['confirmation', 'contradiction', 'double-payment', 'double-payment-original'])
      out.push(renderThread(`w1|${kind}|${encodeURIComponent(f.status)} <@U0ERIN>`, get, 'mainnet'));
    for (const kind of ['released', 'rejected', 'failed', 'completed', 'reminder'])
      out.push(renderThread(`w1|${kind}`, get, 'mainnet'));
    for (const event of ['failed', 'rejected', 'resolved', 'completed', 'released'])
      out.push(renderDm(`w1|${event}`, get, pointer));
    out.push(renderApproverDm('w1|ask', get, pointer));
    out.push(
      auditRowText(
        {
          action: 'reject',
          subject: 'w1',
          actor: 'U0CAROL',
          at: new Date(T0).toISOString(),
          details: {
            amount: f.amount,
            currency: f.currency,
            network: f.network,
            destination: f.address,
            merchantReference: f.reference,
            reason: f.message,
            note: f.note,
          },
        } as never,
        get,
      ),
    );
  }
  return out.filter((m) => m !== null);
}

function txPage(f: Fields): unknown {
  const record = {
    type: 'deposit',
    status: 'successful',
    amount: f.amount,
    currencyName: f.currency,
    networkName: f.network,
    fromAddress: f.address,
    fromAddressUrl: `https://bscscan.com/address/${f.address}`,
    toAddress: f.address,
    hash: f.hash,
    hashUrl: f.reference,
    createdAt: '2030-01-01T00:00:00',
    raw: {},
  } as unknown as TransactionRecord;
  const page = { records: [record, record], pageSize: 2, currentPage: 1, totalPages: 1, totalRecords: 2 };
  return renderPage({ currency: f.currency, hash: f.hash }, { page: 1 } as never, page as TransactionPage);
}

function policyChange(f: Fields): unknown {
  const a: Policy = structuredClone(policy);
  const b: Policy = structuredClone(policy);
  a.withdrawals.allowlist.addresses = [{ address: f.address, network: f.network as never, label: 'Exchange' }];
  b.withdrawals.allowlist.addresses = [
    { address: f.address, network: f.network as never, label: f.label },
    { address: `${f.address}2`, network: f.network as never, label: f.label },
  ];
  return describePolicyChange(a, b).join('\n');
}

function freezeMessages(f: Fields): unknown[] {
  const record: FreezeRecord = { id: 'f1', by: 'U0ERIN', reason: f.message, at: new Date(T0).toISOString() };
  const again = decideFreeze({ type: 'freeze', user: 'U0ERIN', isAdmin: true, reason: 'x', id: 'f2' }, record, T0);
  return [renderFreezeNotice(record, policy), 'message' in again ? String(again.message) : ''];
}

function verificationMessages(f: Fields): unknown[] {
  const a: VerificationAlert = {
    reference: f.reference,
    reason: 'unknown_reference' as never,
    at: new Date(T0).toISOString(),
    state: 'approved',
    destination: f.address,
    amount: f.amount,
    currency: f.currency,
    network: f.network,
    asked: f.reference,
  };
  return [renderVerificationAlert(a, policy), renderVerificationAlert({ ...a, kind: 'notice' }, policy)];
}

function digest(f: Fields): unknown {
  const d: Digest = {
    period: { from: T0 - 86_400_000, to: T0, days: 1 },
    lines: [
      {
        currency: f.currency,
        deposits: { count: 1, total: f.amount },
        withdrawals: { count: 0, total: '0' },
        failed: 0,
      },
    ],
    records: 1,
    truncated: false,
    balances: {
      lines: [{ currency: f.currency, network: f.network, balance: f.amount, change: null } as never],
    },
    approvals: { pending: 0, expired: 0, unknown: 0 },
    largest: [{ type: 'deposit', currency: f.currency, network: f.network, amount: f.amount, party: f.email, at: T0 }],
    chart: { days: ['2030-01-01'], panels: [] },
  };
  return renderDigest(d);
}

function homeLines(f: Fields): unknown {
  // A balance is a decimal the schema checked (wireDecimal); its names are outside text.
  const rows = [{ currency: f.currency, network: f.network, balance: '12.5' }] as never;
  return balanceLines(rows, { [f.currency]: '100' }).join('\n');
}

const KINDS: Record<string, (f: Fields) => unknown[]> = {
  'alerts (single, batch, lines, thread)': alertMessages,
  'withdrawal card, thread lines, DMs, audit lines': withdrawalMessages,
  '/tx page': (f) => [txPage(f)],
  'policy-change description': (f) => [policyChange(f)],
  'freeze notice and refusal': freezeMessages,
  'verification notices': verificationMessages,
  digest: (f) => [digest(f)],
  'App Home balances': (f) => [homeLines(f)],
};

describe('no outside text adds a mention, a link, a channel reference or a line', () => {
  for (const [kind, render] of Object.entries(KINDS)) {
    it(kind, () => {
      const ordinary = render(ORDINARY);
      fc.assert(
        fc.property(fields, (f) => {
          const hostile = render(f);
          expect(hostile.length).toBe(ordinary.length);
          for (const [i, m] of hostile.entries()) expectNoMore(`${kind} #${i}`, m, ordinary[i]);
        }),
        pure(Math.max(50, Math.floor(Number(process.env.FUZZ_RUNS ?? 2_000) / 10))),
      );
    });
  }

  it('the issue’s examples, rendered: text, not a live @channel, link or bullet', () => {
    const f = { ...ORDINARY, status: ATTACKS[0]!, network: ATTACKS[0]!, reference: ATTACKS[0]!, label: ATTACKS[2]! };
    const shown = [...alertMessages(f), ...withdrawalMessages(f), txPage(f), policyChange(f)].flatMap(texts).join('\n');
    expect(shown).not.toContain('<!channel>');
    expect(shown).not.toContain('<https://evil');
    expect(shown).not.toMatch(/\n• Approved by CFO/);
  });
});
