import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('runs with no configuration at all: local mode, embedded sandbox, defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.slack.mode).toBe('local');
    expect(c.wallet.baseUrl).toBeUndefined();
    expect(c.dataDir).toBe('./data');
    expect(c.logLevel).toBe('info');
    expect(c.wallet).toMatchObject({
      v2AuthScheme: 'Bearer',
      refreshMethod: 'POST',
      timestampUnit: 'ms',
      timeoutMs: 10_000,
    });
  });

  it('picks HTTP mode with a bot token and signing secret, Socket Mode with an app token too', () => {
    const http = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' });
    expect(http.slack.mode).toBe('http');
    const socket = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', SLACK_APP_TOKEN: 'xapp-1' });
    expect(socket.slack.mode).toBe('socket');
  });

  it('lists every problem at once, naming each variable', () => {
    const p = problems({
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      WALLET_TIMESTAMP_UNIT: 'ns',
      PUBLIC_URL: 'not a url',
      SLACK_APP_TOKEN: 'xoxb-wrong',
    });
    expect(p.map((x) => x.split(':')[0]).sort()).toEqual([
      'LOG_LEVEL',
      'PORT',
      'PUBLIC_URL',
      'SLACK_APP_TOKEN',
      'SLACK_BOT_TOKEN',
      'WALLET_TIMESTAMP_UNIT',
    ]);
    expect(p.find((x) => x.startsWith('PORT'))).toContain('(got "eighty")');
  });

  it('reports format problems and missing companions together, in one error', () => {
    const p = problems({
      PORT: 'abc',
      SLACK_BOT_TOKEN: 'xoxb-1',
      WALLET_API_BASE_URL: 'https://wallet.example.com',
      LOG_LEVEL: 'chatty',
    });
    expect(p.map((x) => x.split(':')[0]).sort()).toEqual([
      'LOG_LEVEL',
      'PORT',
      'SLACK_SIGNING_SECRET',
      'WALLET_API_KEY',
      'WALLET_MERCHANT_EMAIL',
      'WALLET_MERCHANT_PASSWORD',
      'WALLET_PUBLIC_KEY',
    ]);
  });

  it('requires the whole credential set that goes with a choice', () => {
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual([
      'SLACK_SIGNING_SECRET: required when SLACK_BOT_TOKEN is set',
    ]);
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    const wallet = problems({ ...slack, WALLET_API_BASE_URL: 'https://wallet.example.com' });
    expect(wallet).toHaveLength(4);
    expect(
      problems({
        ...slack,
        WALLET_API_BASE_URL: 'http://wallet.example.com',
        WALLET_API_KEY: 'k',
        WALLET_PUBLIC_KEY: 'p',
        WALLET_MERCHANT_EMAIL: 'a@b.co',
        WALLET_MERCHANT_PASSWORD: 'pw',
      })[0],
    ).toMatch(/must use https/);
    expect(problems({ WEBHOOK_SIGNATURE: 'required' })[0]).toMatch(/^WEBHOOK_SECRET: required/);
  });

  it('never runs the local workspace (anyone who reaches it approves as anyone) against a real wallet service', () => {
    const wallet = {
      WALLET_API_KEY: 'k',
      WALLET_PUBLIC_KEY: 'p',
      WALLET_MERCHANT_EMAIL: 'a@b.co',
      WALLET_MERCHANT_PASSWORD: 'pw',
    };
    const p = problems({ ...wallet, WALLET_API_BASE_URL: 'https://wallet.example.com' });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(
      /^WALLET_API_BASE_URL: a real wallet service needs a real Slack workspace \(set SLACK_BOT_TOKEN/,
    );
    // A sandbox on loopback (npm run sandbox) is fine, and so is a real service with a real workspace.
    expect(() => loadConfig({ ...wallet, WALLET_API_BASE_URL: 'http://127.0.0.1:4000' })).not.toThrow();
    expect(() =>
      loadConfig({
        ...wallet,
        WALLET_API_BASE_URL: 'https://wallet.example.com',
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 's',
      }),
    ).not.toThrow();
  });

  it('refuses credentials inside URLs without echoing them', () => {
    const p = problems({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      WALLET_API_BASE_URL: 'https://merchant:hunter2hunter2@wallet.example.com',
      WALLET_API_KEY: 'k',
      WALLET_PUBLIC_KEY: 'p',
      WALLET_MERCHANT_EMAIL: 'a@b.co',
      WALLET_MERCHANT_PASSWORD: 'pw',
    });
    expect(p).toEqual(['WALLET_API_BASE_URL: must not contain a user name or password']);
  });

  it('never echoes a secret value in its error', () => {
    const secret = 'xoxp-this-is-a-user-token-not-a-bot-token';
    const webhook = 'short!';
    const p = problems({ SLACK_BOT_TOKEN: secret, SLACK_SIGNING_SECRET: 'x', WEBHOOK_SECRET: webhook });
    expect(p.join('\n')).not.toContain(secret);
    expect(p.join('\n')).not.toContain(webhook);
    expect(p.some((x) => x.startsWith('SLACK_BOT_TOKEN: must be a bot token'))).toBe(true);
  });
});

describe('config: wallet-service choices', () => {
  it('reads the open choices of the spec from the environment', () => {
    const c = loadConfig({ WALLET_V2_AUTH_SCHEME: 'Token', WALLET_REFRESH_METHOD: 'put', WALLET_TIMESTAMP_UNIT: 's' });
    expect(c.wallet).toMatchObject({ v2AuthScheme: 'Token', refreshMethod: 'PUT', timestampUnit: 's' });
    expect(
      problems({ WALLET_REFRESH_METHOD: 'PATCH', WALLET_TIMESTAMP_UNIT: 'us' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['WALLET_REFRESH_METHOD', 'WALLET_TIMESTAMP_UNIT']);
  });
});
