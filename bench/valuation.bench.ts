/**
 * Valuation on vs off (issue 24), in the same run: the HTTP ack time of `/withdraw` one-line
 * commands and of approval clicks on an app whose policy is written in value (tiers, daily limit,
 * note, step-up by USD: every request valued from the price cache) beside the same app with the
 * same tiers in native units; the two apps run side by side and are driven alternately, so both
 * see the same machine. Also the price refreshes made (one call for every asset, at most once a
 * minute) over the run. In-process apps (HTTP mode, the fake Slack, the embedded sandbox and its
 * price API), signed requests as Slack sends them.
 */
import { parsePolicy } from '../src/policy/load.js';
import { CHANNELS, startTestApp, USERS, type TestApp } from '../test/helpers/treasury-app.js';
import { until } from '../test/helpers/wait.js';
import { nowMs, percentile, result, type Bench, type BenchResult } from './lib.js';

const N = 60;
const WARMUP = 5;
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';

const policy = (tiers: string, extra: string) =>
  parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}, ${USERS.dave}]
withdrawals:
  tiers:
    ${tiers}:
      - { max: 1000000, approvals: 1 }
      - { approvals: 2 }
  ${extra}
`);

async function withdraw(a: TestApp, i: number): Promise<number> {
  const t = nowMs();
  const { res } = await a.command('/withdraw', `1 USDT BSC ${DEST} ${CLIENT} bench ${i}`, USERS.alice, {
    channel: CHANNELS.command,
  });
  if (res.status !== 200) throw new Error(`/withdraw answered ${res.status}`);
  return nowMs() - t;
}

async function approve(a: TestApp, id: string): Promise<number> {
  const t = nowMs();
  const { res } = await a.click(
    USERS.carol,
    { actionId: 'wd_approve', value: id },
    { channel: CHANNELS.approvals, message: { ts: '1700000000.000100' } },
  );
  if (res.status !== 200) throw new Error(`approve answered ${res.status}`);
  return nowMs() - t;
}

const bench: Bench = {
  name: 'valuation',
  description: 'ack of /withdraw and approval clicks with valuation on beside off (same run); price refreshes',
  async run(): Promise<BenchResult[]> {
    const on = await startTestApp({
      policy: policy(
        'value',
        'daily_limit: { value: 100000000 }\n  note_required_above: { value: 1000000 }\n  step_up_above: { value: 1000000 }',
      ),
    });
    const off = await startTestApp({ policy: policy('default', 'daily_limit: { USDT: 100000000 }') });
    const started = Date.now();
    try {
      // The price job's first run (at start) must have answered: a request made before it is
      // unknown in value (the top tier), which is not the case measured.
      await until('the first price refresh', () => on.app.deps.prices.state().lastOkAt !== undefined, 15_000);
      for (const a of [on, off]) a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
      const acks = {
        on: { withdraw: [] as number[], approve: [] as number[] },
        off: { withdraw: [] as number[], approve: [] as number[] },
      };
      for (let i = 0; i < N + WARMUP; i++) {
        for (const [name, a] of [
          ['on', on],
          ['off', off],
        ] as const) {
          const ms = await withdraw(a, i);
          if (i >= WARMUP) acks[name].withdraw.push(ms);
        }
      }
      for (const [name, a] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const valued = a.app.deps.withdrawals.list().filter((r) => r.valuation?.kind === 'known').length;
        if (name === 'on' && valued < N) throw new Error(`only ${valued} requests were valued`);
      }
      const ids = {
        on: on.app.deps.withdrawals
          .list()
          .filter((r) => r.state === 'pending')
          .map((r) => r.id),
        off: off.app.deps.withdrawals
          .list()
          .filter((r) => r.state === 'pending')
          .map((r) => r.id),
      };
      for (let i = 0; i < Math.min(ids.on.length, ids.off.length); i++) {
        for (const [name, a] of [
          ['on', on],
          ['off', off],
        ] as const) {
          const ms = await approve(a, ids[name][i]!);
          if (i >= WARMUP) acks[name].approve.push(ms);
        }
      }
      const minutes = (Date.now() - started) / 60_000;
      const calls = on.app.deps.prices.state().calls;
      const rows: BenchResult[] = [];
      for (const what of ['withdraw', 'approve'] as const) {
        for (const p of [50, 99]) {
          rows.push(
            result({
              bench: 'valuation',
              case:
                what === 'withdraw' ? '/withdraw ack, valuation on vs off' : 'approval click ack, valuation on vs off',
              metric: `p${p}`,
              value: percentile(acks.on[what], p),
              baseline: percentile(acks.off[what], p),
              unit: 'ms',
              better: 'lower',
            }),
          );
        }
      }
      rows.push(
        result({
          bench: 'valuation',
          case: `price refreshes over ${minutes.toFixed(1)} min (one call for all 17 assets)`,
          metric: 'calls per minute',
          // A run shorter than a minute makes one call (at start): one a minute, not more.
          value: calls / Math.max(minutes, 1),
          baseline: 1,
          unit: 'calls/min',
          better: 'lower',
        }),
      );
      return rows;
    } finally {
      await on.stop();
      await off.stop();
    }
  },
};
export default bench;
