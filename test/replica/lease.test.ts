/**
 * The lease gate at the one place each outside call leaves: the wallet client's HTTP layer asks
 * before every POST or PUT (reads go on), and nothing reaches the server when it refuses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { LeadershipLostError } from '../../src/store/pg/index.js';
import { WalletHttp } from '../../src/wallet/http.js';
import { classifySendError } from '../../src/withdrawals/wallet-answer.js';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('the lease before each wallet write', () => {
  it('stops a POST unsent when this replica no longer leads, and lets reads through', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('{}');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    let leads = true;
    const http = new WalletHttp({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      logger: createLogger({ level: 'silent' }),
      retryBaseMs: 1,
      retryMaxDelayMs: 1,
      beforeWrite: () => {
        if (!leads) throw new LeadershipLostError('this replica no longer leads: fenced');
      },
    });
    const deadline = () => Date.now() + 5_000;
    await http.send({ method: 'POST', path: '/withdraw', body: '{}', headers: {} }, deadline(), 'withdraw');
    leads = false;
    await expect(
      http.send({ method: 'POST', path: '/withdraw', body: '{}', headers: {} }, deadline(), 'withdraw'),
    ).rejects.toBeInstanceOf(LeadershipLostError);
    await http.send({ method: 'GET', path: '/transactions', headers: {} }, deadline(), 'list');
    expect(seen).toEqual(['POST /withdraw', 'GET /transactions']);

    // the refusal is recorded as what it is: nothing sent, never "the money may have moved"
    const refused = await http
      .send({ method: 'POST', path: '/withdraw', body: '{}', headers: {} }, deadline(), 'withdraw')
      .catch((err: unknown) => err);
    const c = classifySendError(refused);
    expect(c.state).toBe('failed');
    expect(c.errorKind).toBe('not_sent');
    expect(c.message).not.toMatch(/may have moved/);
    expect(seen).toHaveLength(2);
  });
});
