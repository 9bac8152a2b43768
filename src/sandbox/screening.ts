/**
 * The sandbox's screening services, so `npm start` and the tests screen with no account:
 *
 * - the sanctions list, in the per-asset layout of 0xB10C/ofac-sanctioned-digital-currency-addresses
 *   (`GET /sanctions/sanctioned_addresses_<ASSET>.txt`): the app's bundled snapshot, plus the
 *   addresses a test lists and minus those it delists (EVM ones under ETH, TRON ones under TRX,
 *   others under XBT), or 503 while the list is "down";
 * - a Chainalysis-compatible sanctions API (`GET /api/v1/address/{address}` with `X-API-Key`),
 *   answering `{"identifications": [...]}`: one identification for an address a test listed with
 *   the provider, none otherwise; 401 for a wrong key; 503 while the provider is "down".
 *
 * Test control `POST /sandbox/screening` (JSON, the guard of every /sandbox/* endpoint):
 * `{ "list"?: { "add"?: [..], "remove"?: [..], "down"?: bool }, "provider"?: { "add"?: [..], "remove"?: [..], "down"?: bool } }`;
 * answers the state. The same controls are methods of the sandbox handle (`sandbox.screening`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { addressKey, parseAddresses } from '../screening/list.js';
import { SNAPSHOT_DIR } from '../screening/load.js';
import { describeIssues, header, jsonObject, parseMediaType } from './body.js';
import { controlError, type Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';
import { stringifyJson } from '../wallet/json.js';

export const SANCTIONS_PREFIX = '/sanctions';
export const SCREENING_API_PREFIX = '/api/v1/address';
export const SCREENING_CONTROL_PATH = '/sandbox/screening';
/** The key the embedded sandbox's provider accepts (a stand-in: it guards nothing real). */
export const SANDBOX_SCREENING_KEY = 'sandbox-screening-key';

export interface SandboxScreening {
  /** Lists `address` on the sanctions list (served from the next read on). */
  listAdd(...addresses: string[]): void;
  listRemove(...addresses: string[]): void;
  /** The list answers 503 while on. */
  listDown(on: boolean): void;
  /** The provider identifies `address` as sanctioned. */
  providerAdd(...addresses: string[]): void;
  providerRemove(...addresses: string[]): void;
  providerDown(on: boolean): void;
  /** Answers given by the provider so far (asked, whatever the answer). */
  providerAnswers(): number;
}

export interface ScreeningState extends SandboxScreening {
  lists: { added: Set<string>; removed: Set<string>; down: boolean };
  provider: { listed: Set<string>; down: boolean; answers: number };
}

export function createSandboxScreening(): ScreeningState {
  const lists = { added: new Set<string>(), removed: new Set<string>(), down: false };
  const provider = { listed: new Set<string>(), down: false, answers: 0 };
  return {
    lists,
    provider,
    listAdd: (...a) => {
      for (const x of a) {
        lists.added.add(x.trim());
        lists.removed.delete(addressKey(x));
      }
    },
    listRemove: (...a) => {
      for (const x of a) {
        lists.removed.add(addressKey(x));
        lists.added.delete(x.trim());
      }
    },
    listDown: (on) => {
      lists.down = on;
    },
    providerAdd: (...a) => {
      for (const x of a) provider.listed.add(addressKey(x));
    },
    providerRemove: (...a) => {
      for (const x of a) provider.listed.delete(addressKey(x));
    },
    providerDown: (on) => {
      provider.down = on;
    },
    providerAnswers: () => provider.answers,
  };
}

/** The asset file an added address is served in. */
const assetOf = (a: string) => (/^0x/i.test(a) ? 'ETH' : /^T/.test(a) ? 'TRX' : 'XBT');

let snapshot: Map<string, string> | undefined;
/** The bundled snapshot's files by asset, read once. */
function bundled(): Map<string, string> {
  if (snapshot) return snapshot;
  const files = new Map<string, string>();
  for (const n of readdirSync(SNAPSHOT_DIR)) {
    const m = /^sanctioned_addresses_([A-Z0-9]+)\.txt$/.exec(n);
    if (m) files.set(m[1]!, readFileSync(join(SNAPSHOT_DIR, n), 'utf8'));
  }
  snapshot = files;
  return files;
}

export function sanctionsFile(s: ScreeningState, req: SandboxRequest): Reply {
  if (s.lists.down) return { status: 503, text: 'unavailable' };
  const path = new URL(req.target, 'http://sandbox.invalid').pathname;
  const m = /^\/sanctions\/sanctioned_addresses_([A-Z0-9]+)\.txt$/.exec(path);
  if (!m) return { status: 404, text: 'not found' };
  const asset = m[1]!;
  const base = bundled().get(asset);
  const added = [...s.lists.added].filter((a) => assetOf(a) === asset);
  if (base === undefined && !added.length) return { status: 404, text: 'not found' };
  const lines = [...parseAddresses(base ?? '', asset), ...added].filter((a) => !s.lists.removed.has(addressKey(a)));
  return { status: 200, text: lines.length ? `${lines.join('\n')}\n` : '', headers: { 'content-type': 'text/plain' } };
}

export function screeningAnswer(s: ScreeningState, req: SandboxRequest): Reply {
  if (header(req, 'x-api-key') !== SANDBOX_SCREENING_KEY) return { status: 401, body: { message: 'invalid API key' } };
  if (s.provider.down) return { status: 503, body: { message: 'unavailable' } };
  s.provider.answers += 1;
  const path = new URL(req.target, 'http://sandbox.invalid').pathname;
  const address = decodeURIComponent(path.slice(SCREENING_API_PREFIX.length + 1));
  if (!address || address.includes('/')) return { status: 404, body: { message: 'not found' } };
  const listed = s.provider.listed.has(addressKey(address));
  return {
    status: 200,
    body: {
      identifications: listed
        ? [
            {
              category: 'sanctions',
              name: 'SANCTIONS: OFAC SDN (sandbox test entry)',
              description: 'Listed by a test of the sandbox.',
              url: 'https://home.treasury.gov/policy-issues/financial-sanctions/specially-designated-nationals-and-blocked-persons-list-sdn-human-readable-lists',
            },
          ]
        : [],
    },
  };
}

const addresses = z.array(z.string().min(1).max(128)).max(1000).optional();
const controlBody = z.strictObject({
  list: z.strictObject({ add: addresses, remove: addresses, down: z.boolean().optional() }).optional(),
  provider: z.strictObject({ add: addresses, remove: addresses, down: z.boolean().optional() }).optional(),
});

export function screeningControlRoute(s: ScreeningState, req: SandboxRequest): Reply {
  if (parseMediaType(header(req, 'content-type') ?? '').type !== 'application/json')
    return controlError(415, 'Test-only endpoints accept only JSON posts (content-type: application/json)');
  const parsed = jsonObject(req);
  if (!parsed.ok) return controlError(400, parsed.message);
  const input = controlBody.safeParse(JSON.parse(stringifyJson(parsed.value)));
  if (!input.success) return controlError(400, describeIssues(input.error));
  const { list, provider } = input.data;
  s.listAdd(...(list?.add ?? []));
  s.listRemove(...(list?.remove ?? []));
  if (list?.down !== undefined) s.listDown(list.down);
  s.providerAdd(...(provider?.add ?? []));
  s.providerRemove(...(provider?.remove ?? []));
  if (provider?.down !== undefined) s.providerDown(provider.down);
  return {
    status: 200,
    body: {
      list: { added: [...s.lists.added], removed: [...s.lists.removed], down: s.lists.down },
      provider: { listed: [...s.provider.listed], down: s.provider.down, answers: s.provider.answers },
    },
  };
}
