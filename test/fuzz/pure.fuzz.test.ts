/**
 * Thousands of hostile inputs through the pure cores: the envelope check, the Slack limits,
 * the /tx filter language, the one-line /withdraw parser, the JSON depth check, webhook
 * reading and the policy loader. Properties: nothing throws that is not the documented
 * refusal, refusals say what was wrong, and whatever is sent to Slack fits its limits.
 */
import fc from 'fast-check';
import { stringify as yaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseWebhookBodyForFuzz } from './webhook-body.js';
import { jsonTooDeep } from '../../src/http/json-depth.js';
import { parsePolicy, PolicyError } from '../../src/policy/load.js';
import { checkEnvelope } from '../../src/slack/payloads.js';
import { clampMessage, clampView, echo, ECHO_MAX } from '../../src/slack/limits.js';
import { words } from '../../src/slack/text.js';
import { parseFilters } from '../../src/transactions/filters.js';
import { parseOneLine } from '../../commands/withdraw/parse.js';
import { messageViolations, viewViolations } from '../slack/limits-check.js';
import { hostileJson, hostileString, commandText, pure, PROTO_KEYS } from './config.js';

describe('envelope check', () => {
  it('never throws, whatever the parsed body', () => {
    fc.assert(
      fc.property(hostileJson, (body) => {
        const r = checkEnvelope(body);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(r.reason.length).toBeGreaterThan(0);
      }),
      pure(),
    );
  });

  it('refuses a block_actions payload with any one field broken', () => {
    const good = {
      type: 'block_actions',
      user: { id: 'U1' },
      actions: [{ action_id: 'a', type: 'button', value: 'v' }],
    };
    expect(checkEnvelope(good).ok).toBe(true);
    fc.assert(
      fc.property(
        fc.constantFrom('user', 'actions'),
        fc.oneof(fc.constant(null), fc.integer(), fc.string(), fc.constant([])),
        (field, bad) => {
          expect(checkEnvelope({ ...good, [field]: bad }).ok).toBe(false);
        },
      ),
      pure(500),
    );
  });
});

const textObj = (max: number) =>
  fc.record({ type: fc.constantFrom('plain_text', 'mrkdwn'), text: fc.string({ maxLength: max }) });
const long = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer({ min: 0, max: 50_000 }).map((n) => 'é'.repeat(n)),
);
const bigText = fc.record({ type: fc.constantFrom('plain_text', 'mrkdwn'), text: long });
const button = fc.record({ type: fc.constant('button'), text: bigText, action_id: long, value: long });
const option = fc.record({ text: bigText, value: long });
const block = fc.oneof(
  fc.record({ type: fc.constant('section'), text: bigText }),
  fc.record({ type: fc.constant('section'), fields: fc.array(bigText, { maxLength: 14 }), accessory: button }),
  fc.record({ type: fc.constant('header'), text: bigText }),
  fc.record({ type: fc.constant('context'), elements: fc.array(bigText, { maxLength: 14 }) }),
  fc.record({ type: fc.constant('actions'), block_id: long, elements: fc.array(button, { maxLength: 6 }) }),
  fc.record({
    type: fc.constant('input'),
    label: bigText,
    element: fc.record({
      type: fc.constant('static_select'),
      action_id: long,
      placeholder: bigText,
      options: fc.array(option, { maxLength: 120 }),
    }),
  }),
  fc.constant({ type: 'divider' }),
);

describe('Slack limits', () => {
  it('any message, once clamped, is within every limit', () => {
    fc.assert(
      fc.property(long, fc.array(block, { maxLength: 70 }), (text, blocks) => {
        const out = clampMessage({ channel: 'C1', text, blocks });
        expect(messageViolations(out as Record<string, unknown>, 'message')).toEqual([]);
      }),
      pure(300),
    );
  });

  it('any modal, once clamped, is within every limit', () => {
    fc.assert(
      fc.property(
        bigText,
        fc.option(bigText),
        long,
        fc.array(block, { maxLength: 130 }),
        (title, submit, metadata, blocks) => {
          const out = clampView({
            type: 'modal',
            title,
            submit: submit ?? undefined,
            private_metadata: metadata,
            blocks,
          });
          expect(viewViolations(out, 'view')).toEqual([]);
        },
      ),
      pure(200),
    );
  });

  it('what fits is left alone', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100 }),
        fc.array(fc.record({ type: fc.constant('section'), text: textObj(2_000) }), { maxLength: 40 }),
        (text, blocks) => {
          expect(clampMessage({ text, blocks })).toEqual({ text, blocks });
        },
      ),
      pure(500),
    );
  });

  it('echoes of user input are short, one line and cannot mention anyone', () => {
    fc.assert(
      fc.property(hostileString, (s) => {
        const e = echo(s);
        expect(e.length).toBeLessThanOrEqual(ECHO_MAX * 5); // escaping may lengthen each of ≤ ECHO_MAX characters to 5
        expect(e).not.toMatch(/[\n\r<>`]/);
      }),
      pure(),
    );
  });
});

describe('/tx filters and /withdraw one-line', () => {
  it('parse anything without throwing; a refusal names the problem', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const w = words(text);
        const r = parseFilters(w);
        if (!r.ok) {
          expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors)
            expect(e).toMatch(
              /filter|currency|network|status|type|hash|address|date|whole number|twice|needs a value|after/,
            );
        }
        // Values left out come back empty, for the service to name every missing one at once.
        const one = parseOneLine(text);
        for (const v of [one.amount, one.currency, one.network, one.destination, one.clientEmail])
          expect(typeof v).toBe('string');
      }),
      pure(),
    );
  });

  it('prototype keys are unknown filters, never inherited members', () => {
    for (const k of PROTO_KEYS) {
      const r = parseFilters([`${k}=1`]);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]).toContain('unknown filter');
    }
  });
});

/** Reference depth: parse with JSON.parse (our inputs are shallow enough) and walk. */
function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const kids = Array.isArray(v) ? v : Object.values(v);
  return 1 + kids.reduce<number>((m, k) => Math.max(m, depth(k)), 0);
}

describe('JSON depth check', () => {
  it('agrees with the parsed depth on any JSON', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), fc.integer({ min: 0, max: 8 }), (text, max) => {
        expect(jsonTooDeep(text, max)).toBe(depth(JSON.parse(text)) > max);
      }),
      pure(),
    );
  });

  it('thousands of levels are caught in one pass', () => {
    expect(jsonTooDeep('['.repeat(100_000))).toBe(true);
    expect(jsonTooDeep(`{"a":"${'['.repeat(1000)}"}`)).toBe(false);
  });
});

describe('webhook bodies', () => {
  it('any JSON value reads as an event or is refused, never a crash', () => {
    fc.assert(
      fc.property(hostileJson, (v) => {
        const r = parseWebhookBodyForFuzz(JSON.stringify(v) ?? 'null');
        expect(['event', 'refused']).toContain(r);
      }),
      pure(),
    );
  });
});

describe('policy file', () => {
  const example = {
    channels: { approvals: 'C0APPROVALS', alerts: 'C0ALERTS' },
    people: { viewers: ['*'], requesters: ['U0ALICE'], approvers: ['U0CAROL'], admins: ['U0ERIN'] },
    withdrawals: {
      expires_after: '2h',
      tiers: { default: [{ max: 1000, approvals: 1 }, { approvals: 2 }] },
      daily_limit: { USDT: 50000 },
    },
  };
  const paths = [
    'channels',
    'people',
    'withdrawals',
    'people.viewers',
    'withdrawals.tiers',
    'withdrawals.daily_limit',
    'withdrawals.expires_after',
    'channels.approvals',
    'withdrawals.tiers.default',
  ];

  it('a valid policy loads', () => {
    expect(() => parsePolicy(yaml(example))).not.toThrow();
  });

  it('any field replaced by anything: loads or a PolicyError that names the place', () => {
    fc.assert(
      fc.property(fc.constantFrom(...paths), hostileJson, (p, value) => {
        const copy = structuredClone(example) as Record<string, unknown>;
        const keys = p.split('.');
        let o = copy;
        for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
        o[keys.at(-1)!] = value;
        try {
          parsePolicy(yaml(copy));
        } catch (err) {
          expect(err).toBeInstanceOf(PolicyError);
          expect((err as Error).message.length).toBeGreaterThan(0);
        }
      }),
      pure(1_000),
    );
  });

  it('any text: loads or a PolicyError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          hostileJson.map((v) => yaml(v)),
        ),
        (text) => {
          try {
            parsePolicy(text);
          } catch (err) {
            expect(err).toBeInstanceOf(PolicyError);
          }
        },
      ),
      pure(1_000),
    );
  });
});

describe('policy tables have no inherited members', () => {
  it('per-currency lookups by a prototype key find nothing', () => {
    const p = parsePolicy(
      yaml({
        channels: { approvals: 'C0APPROVALS', alerts: 'C0ALERTS' },
        people: { viewers: ['*'], requesters: ['U0ALICE'], approvers: ['U0CAROL'], admins: ['U0ERIN'] },
        withdrawals: { expires_after: '2h', tiers: { default: [{ approvals: 1 }] }, daily_limit: { USDT: 5 } },
        alerts: { mention_above: { USDT: 10 } },
      }),
    );
    for (const k of PROTO_KEYS) {
      expect(p.withdrawals.daily_limit[k]).toBeUndefined();
      expect(p.withdrawals.tiers[k]).toBeUndefined();
      expect(p.alerts.mention_above[k]).toBeUndefined();
    }
  });
});
