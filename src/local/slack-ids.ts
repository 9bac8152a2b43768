// One workspace shared by the request builders and the fake Web API, so that what a
// test sends as "the team" and what auth.test answers agree without repeating literals.
export const SLACK_IDS = {
  teamId: 'T0FAKE0001',
  teamDomain: 'treasury-test',
  teamName: 'Treasury Test',
  enterpriseId: undefined as string | undefined,
  appId: 'A0FAKE0001',
  botUserId: 'U0FAKEBOT1',
  botId: 'B0FAKEBOT1',
  botName: 'treasury-bot',
  userId: 'U0FAKEUSR1',
  userName: 'alice',
  channelId: 'C0FAKECHN1',
  channelName: 'treasury',
} as const;

export type SlackIds = typeof SLACK_IDS;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

// Slack ids are a type letter plus upper-case alphanumerics; a per-prefix counter keeps
// them unique and readable in failure messages while still looking like the real thing.
const counters = new Map<string, number>();
export function slackId(prefix: string, width = 10): string {
  const n = (counters.get(prefix) ?? 0) + 1;
  counters.set(prefix, n);
  let body = '';
  let rest = n;
  while (rest > 0) {
    body = ALPHABET[rest % 36] + body;
    rest = Math.floor(rest / 36);
  }
  return prefix + body.padStart(width, '0');
}

/** Trigger ids look like `13345224609.738474920.8088930838d88f008e0`. */
export function triggerId(): string {
  const a = Math.floor(Math.random() * 9e10) + 1e10;
  const b = Math.floor(Math.random() * 9e8) + 1e8;
  const c = Array.from({ length: 20 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `${a}.${b}.${c}`;
}

let tsSeq = 0;
/**
 * Message timestamps: `<unix seconds>.<6 digits>`, strictly increasing within the process
 * so two posts in the same second never collide (Slack guarantees uniqueness per channel).
 */
export function messageTs(): string {
  tsSeq += 1;
  const sec = Math.floor(Date.now() / 1000);
  return `${sec}.${String(tsSeq % 1_000_000).padStart(6, '0')}`;
}
