/**
 * The policy file as governance sees it: read, parsed, validated and hashed (`read`, never
 * throws: an unusable file is a reading like any other, for the decider to act on), and
 * watched (fs.watch on its directory, debounced, plus a slow poll). No decision is made here:
 * whether a reading is new, a proposal or a problem is decide.ts's.
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { configure } from 'safe-stable-stringify';
import type { Logger } from '../../log.js';
import { PolicyError, parsePolicy } from '../load.js';
import type { Policy } from '../schema.js';

const canonical = configure({ deterministic: true });

/** The parsed policy's identity: the same rules give the same hash whatever the comments and layout. */
export function policyHash(p: Policy): string {
  return createHash('sha256')
    .update(canonical(p) ?? '')
    .digest('hex');
}

/** The file's raw identity: an unchanged file (every poll) is not looked at again. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The file as read now. `rawHash` names what was read, so a file that stays broken is reported once. */
export type FileReading = UsableReading | { ok: false; rawHash: string; error: string };
export interface UsableReading {
  ok: true;
  rawHash: string;
  text: string;
  policy: Policy;
  /** policyHash of `policy`. */
  hash: string;
}

export interface PolicyFileSourceOptions {
  path: string;
  logger: Logger;
  /** What the schema cannot know (e.g. that each `schedule:` name is a job); any problem makes the file unusable. */
  check?: (policy: Policy) => string[];
  /** How often the file is read even if no file-system event came (editors and network disks miss some). */
  pollMs?: number;
  /** Called (debounced) when the file may have changed. */
  onChange: () => Promise<unknown>;
}

export interface PolicyFileSource {
  read(): Promise<FileReading>;
  /** Look at the file shortly (debounced: a burst of events gives one check). */
  checkSoon(): void;
  watch(): void;
  stop(): void;
}

async function readText(path: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  try {
    return { ok: true, text: await readFile(path, 'utf8') };
  } catch (err) {
    return {
      ok: false,
      error: `The policy file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    };
  }
}

function checked(check: ((policy: Policy) => string[]) | undefined, p: Policy, source: string): Policy {
  const problems = check?.(p) ?? [];
  if (problems.length) throw new PolicyError(`${source} is invalid:\n${problems.map((m) => `  - ${m}`).join('\n')}`);
  return p;
}

/** The first policy ever loaded: there is nothing to fall back on, so an unusable file throws (PolicyError). */
export async function readFirstPolicy(
  path: string,
  check: ((policy: Policy) => string[]) | undefined,
): Promise<UsableReading> {
  const read = await readText(path);
  if (!read.ok) throw new PolicyError(read.error);
  // Errors name the file's path here: this stops the start, and the operator reads it in the terminal.
  const policy = checked(check, parsePolicy(read.text, path), path);
  return { ok: true, text: read.text, rawHash: textHash(read.text), policy, hash: policyHash(policy) };
}

export function createPolicyFileSource(o: PolicyFileSourceOptions): PolicyFileSource {
  const { path, logger: log } = o;

  let watcher: FSWatcher | undefined;
  let poll: NodeJS.Timeout | undefined;
  let debounce: NodeJS.Timeout | undefined;
  const checkSoon = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      o.onChange().catch((err: unknown) => log.error({ err }, 'checking the policy file failed'));
    }, 300);
    debounce.unref();
  };

  return {
    async read() {
      const read = await readText(path);
      // Unreadable is keyed by its error: the same failure is reported once, a different one again.
      const rawHash = read.ok ? textHash(read.text) : `unreadable:${read.error}`;
      try {
        if (!read.ok) throw new PolicyError(read.error);
        const policy = checked(o.check, parsePolicy(read.text, 'The policy file'), 'The policy file');
        return { ok: true, rawHash, text: read.text, policy, hash: policyHash(policy) };
      } catch (err) {
        return { ok: false, rawHash, error: err instanceof Error ? err.message : String(err) };
      }
    },
    checkSoon,
    watch() {
      if (watcher || poll) return;
      const file = basename(path);
      try {
        // The directory, not the file: editors replace the file (a rename), which ends a watch on it.
        watcher = watch(dirname(path), (_event, name) => {
          if (!name || name === file) checkSoon();
        });
        watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the policy file failed; polling only'));
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'cannot watch the policy file; polling only');
      }
      poll = setInterval(checkSoon, o.pollMs ?? 60_000);
      poll.unref();
    },
    stop() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(debounce);
      watcher = undefined;
      poll = undefined;
    },
  };
}
