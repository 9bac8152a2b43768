/**
 * Every path that lets go of an enrolment's QR image (it encodes the secret) hands it to
 * `discardQr` inside the commit that lets go of it, exactly once: the app enqueues its deletion
 * there (src/app/step-up.ts), so no image is left in Slack.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { codeAt, createStepUpService, ENROLMENTS, type StepUpService } from '../../src/stepup/index.js';
import { openStore, type Store } from '../../src/store/index.js';

const ALICE = 'U0ALICE01';
let dir: string;
let store: Store;
let service: StepUpService;
let discarded: string[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stepup-qr-'));
  store = await openStore({ dir });
  discarded = [];
  service = createStepUpService({
    store,
    key: randomBytes(32),
    now: Date.now,
    logger: createLogger({ level: 'silent' }),
    discardQr: (_tx, fileId) => discarded.push(fileId),
  });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function begin() {
  const b = await service.begin(ALICE);
  if (!b.ok) throw new Error(b.message);
  return b;
}

it('two set-ups started at once: each image attaches only to its own set-up, the other is discarded', async () => {
  const first = await begin();
  const second = await begin();
  // The second upload lands first, the first one's after it.
  expect(await service.attachQr(ALICE, second.attempt, 'F_SECOND')).toBe(true);
  expect(await service.attachQr(ALICE, first.attempt, 'F_FIRST')).toBe(false);
  expect(discarded).toEqual(['F_FIRST']);
  expect(store.get(ENROLMENTS, ALICE)?.qrFileId).toBe('F_SECOND');
});

it('started again, confirmed, reset, abandoned: the image in hand is discarded each time, once', async () => {
  const a = await begin();
  await service.attachQr(ALICE, a.attempt, 'F_A');
  const b = await begin();
  expect(discarded).toEqual(['F_A']);
  await service.attachQr(ALICE, b.attempt, 'F_B');
  expect((await service.confirm(ALICE, codeAt(b.secret, Date.now()))).ok).toBe(true);
  expect(discarded).toEqual(['F_A', 'F_B']);
  // Already confirmed: an image still arriving for that set-up is discarded at once.
  expect(await service.attachQr(ALICE, b.attempt, 'F_LATE')).toBe(false);
  expect(discarded).toEqual(['F_A', 'F_B', 'F_LATE']);

  expect((await service.reset('U0ADMIN01', ALICE, true)).ok).toBe(true);
  const c = await begin();
  await service.attachQr(ALICE, c.attempt, 'F_C');
  await service.abandon(ALICE);
  expect(discarded).toEqual(['F_A', 'F_B', 'F_LATE', 'F_C']);

  // A reset of a pending set-up discards its image too.
  const d = await begin();
  await service.attachQr(ALICE, d.attempt, 'F_D');
  expect((await service.reset('U0ADMIN01', ALICE, true)).ok).toBe(true);
  expect(discarded).toEqual(['F_A', 'F_B', 'F_LATE', 'F_C', 'F_D']);
});
