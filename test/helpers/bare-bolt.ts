/**
 * The smallest Bolt app that can answer a slash command and a button: one `/noop` command and
 * one `noop` action that only ack, on the stock HTTPReceiver. The ack latency benchmarks
 * (slash commands, approval clicks) measure our app against it, so it must stay free of
 * project code and of anything Bolt does not do by default.
 */
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

export interface BareBoltOptions {
  /** The fake Web API base (`fake.url`); Bolt calls auth.test there once, on the first request. */
  fakeSlackUrl: string;
  signingSecret: string;
  botToken?: string;
}

export interface BareBolt {
  /** `http://127.0.0.1:<port>`; requests go to `${url}/slack/events` (sendToBolt appends it). */
  url: string;
  app: App;
  stop(): Promise<void>;
}

export async function startBareBoltApp(opts: BareBoltOptions): Promise<BareBolt> {
  const receiver = new HTTPReceiver({ signingSecret: opts.signingSecret, logLevel: LogLevel.ERROR });
  const app = new App({
    receiver,
    token: opts.botToken ?? 'xoxb-bare-bolt-token',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: opts.fakeSlackUrl },
  });
  app.command('/noop', async ({ ack }) => {
    await ack();
  });
  app.action('noop', async ({ ack }) => {
    await ack();
  });
  const server = await receiver.start({ port: 0, host: '127.0.0.1' });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    stop: () => receiver.stop(),
  };
}
