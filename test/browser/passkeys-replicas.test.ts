/**
 * A passkey confirmation started on one PostgreSQL replica and finished on the other: the
 * credential, the challenge and its spending live in the database, not in a process. Two apps
 * share one database behind a forwarding proxy at PUBLIC_URL (as a load balancer routes to the
 * replica that leads). Replica A enrols the passkey, answers Approve and serves the page and its
 * options; A then stops, B takes the lead, and the browser's assertion reaches B, which records
 * the approval once and refuses the same assertion again. Chromium's virtual authenticator.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { clientOnRecord } from '../helpers/clients.js';
import { pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { replicaRig } from '../helpers/replicas.js';
import { startTestApp, TEST_POLICY_YAML, type TestApp, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CLIENT = 'passkey@client.example';
const DEST = '0x1111111111111111111111111111111111111111';
const POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  passkey_above: { USDT: 500 }\n',
  ),
);

const run = pgAvailable && existsSync(CHROMIUM);

describe.skipIf(!run)(
  `a passkey confirmation across two PostgreSQL replicas${pgSkipReason ? ` (${pgSkipReason})` : ''}`,
  () => {
    const rig = replicaRig('passkeys');
    let browser: Browser | undefined;
    afterAll(async () => {
      await browser?.close();
    });

    it('started on replica A, finished on replica B: recorded once, the replay refused there', async () => {
      // The load balancer: forwards to whichever replica `target` names.
      let target = 0;
      const proxy = createServer((req, res) => {
        const fwd = httpRequest(
          { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        fwd.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        req.pipe(fwd);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      rig.cleanups.push(() => new Promise((r) => proxy.close(r)));
      const publicUrl = `http://localhost:${(proxy.address() as AddressInfo).port}`;
      const env = {
        DATABASE_URL: rig.url(),
        SECRETS_KEY: randomBytes(32).toString('base64'),
        PUBLIC_URL: publicUrl,
      };

      let offset = 0;
      const now = () => Date.now() + offset;
      const a = await startTestApp({ env, fake: rig.fake(), policy: POLICY, now });
      rig.apps.push(a);
      target = a.app.port;
      a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
      await clientOnRecord({ store: a.app.deps.store, wallet: a.app.deps.wallet }, CLIENT);

      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(20_000);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });

      // Enrolled through A (the DM's link is under PUBLIC_URL).
      const sentBefore = rig.fake().calls('chat.postMessage').length;
      await a.command('/treasury', 'passkey', USERS.carol);
      const link = await until('the set-up link', () => {
        for (const c of rig.fake().calls('chat.postMessage').slice(sentBefore)) {
          const m = /<(http:\/\/localhost:\d+\/passkeys\/enrol\/[A-Za-z0-9_-]{43})\|/.exec(String(c.args.text ?? ''));
          if (m) return m[1];
        }
        return undefined;
      });
      expect(link.startsWith(`${publicUrl}/`)).toBe(true);
      await page.goto(link);
      await page.locator('#go').click();
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 20_000 }).toContain('is set up');
      // Past the passkey's waiting time (the policy's passkey_cooloff, a day by default).
      offset += 25 * 3_600_000;

      // A request and Carol's Approve on A: the confirmation's challenge is made and stored there.
      await a.command('/withdraw', `2000 USDT BSC ${DEST} ${CLIENT} invoice 1`, USERS.alice);
      const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
      const { responseUrl } = await a.click(USERS.carol, { actionId: ACTIONS.approve, value: r.id });
      const reply = JSON.stringify((await a.replies(responseUrl, 1))[0]);
      const url = /"url":"(http:\/\/localhost:\d+\/confirm\/[A-Za-z0-9_-]{43})"/.exec(reply)?.[1];
      expect(url?.startsWith(`${publicUrl}/confirm/`)).toBe(true);

      // The page and its options come from A; before the assertion is posted, A stops and B leads.
      let b: TestApp | undefined;
      let assertion = '';
      await page.route('**/confirm/*', async (route) => {
        const req = route.request();
        if (req.method() === 'POST' && !req.url().endsWith('/options')) {
          assertion = req.postData() ?? '';
          await a.stop();
          rig.apps.splice(rig.apps.indexOf(a), 1);
          b = await startTestApp({ env, fake: rig.fake(), policy: POLICY, now });
          rig.apps.push(b);
          target = b.app.port;
        }
        await route.continue();
      });
      await page.goto(url!);
      expect(await page.locator('#summary').innerText()).toContain('2,000.00 USDT');
      await page.locator('#go').click();
      await expect
        .poll(() => page.locator('#status').innerText(), { timeout: 60_000 })
        .toContain('Your approval is recorded');

      const onB = b!;
      expect(onB.app.deps.withdrawals.get(r.id)!.approvals).toEqual([
        expect.objectContaining({ user: USERS.carol, stepUp: 'passkey' }),
      ]);
      const audit = (action: string) =>
        onB.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.action === action && e.subject === r.id);
      expect(audit('passkey_confirm_started')).toHaveLength(1);
      expect(audit('passkey_confirmed')).toHaveLength(1);

      // The same assertion again, to B: spent, refused, nothing more approved.
      const again = await fetch(url!.replace('://localhost:', '://127.0.0.1:'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: assertion,
      });
      expect(again.status).toBe(403);
      expect(((await again.json()) as { reason: string }).reason).toBe('replayed');
      expect(onB.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(1);
      expect(audit('approve')).toHaveLength(1);
    }, 120_000);
  },
);
