import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument, visit } from 'yaml';
import { policySchema, type Policy } from './schema.js';
import { dropUnknownKeys, formatPath, protoKeyPlaces, unknownKeyLines, type UnknownKeysIssue } from './unknown-keys.js';

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** The YAML as plain data, amounts as written; PolicyError when it is not YAML. */
function readYaml(text: string, source: string): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length) throw new PolicyError(`${source} is not valid YAML: ${doc.errors[0]!.message}`);
  // Amounts must keep the digits written in the file: a YAML float would round 12345678901234567.5.
  // Non-integers and integers past 2^53 are read as their source text (zod checks them as decimals).
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'number' && !Number.isSafeInteger(node.value) && typeof node.source === 'string')
        node.value = node.source;
    },
  });
  try {
    // toJS() throws on what parsing lets through: an alias to no anchor ("*x"), too many aliases.
    return doc.toJS();
  } catch (err) {
    throw new PolicyError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
}

/** A problem as zod reports it; `keys` on the unknown-keys ones. */
type Issue = { code: string; path: PropertyKey[]; message: string; keys?: readonly string[] };
const isUnknownKeys = (i: Issue): i is Issue & UnknownKeysIssue => i.code === 'unrecognized_keys';

/** The policy, or every problem: zod's, and a `__proto__` key wherever zod skips one without a word. */
function validate(raw: unknown): { ok: true; policy: Policy } | { ok: false; issues: Issue[] } {
  const parsed = policySchema.safeParse(raw);
  const issues: Issue[] = parsed.success ? [] : [...parsed.error.issues];
  const told = new Set(
    issues.filter((i) => isUnknownKeys(i) && i.keys.includes('__proto__')).map((i) => formatPath(i.path)),
  );
  for (const path of protoKeyPlaces(raw))
    if (!told.has(formatPath(path))) issues.push({ code: 'unrecognized_keys', path, keys: ['__proto__'], message: '' });
  return parsed.success && !issues.length ? { ok: true, policy: parsed.data } : { ok: false, issues };
}

/** Every problem, one line each, with its path as the file is written (`tiers.value[1].approvals`). */
function problemLines(issues: readonly Issue[]): string[] {
  return issues.flatMap((i) =>
    isUnknownKeys(i)
      ? unknownKeyLines(policySchema, i)
      : [`${i.path.length ? formatPath(i.path) : '(top level)'}: ${i.message}`],
  );
}

const invalid = (source: string, issues: readonly Issue[]) =>
  new PolicyError(
    `${source} is invalid:\n${problemLines(issues)
      .map((l) => `  - ${l}`)
      .join('\n')}`,
  );

/**
 * Parse and validate policy YAML; the error lists every problem with its path. A key the schema
 * does not know is one of them, with the nearest known key: it is never dropped in silence.
 */
export function parsePolicy(text: string, source = 'policy'): Policy {
  const checked = validate(readYaml(text, source));
  if (!checked.ok) throw invalid(source, checked.issues);
  return checked.policy;
}

/**
 * A policy approved and kept in the store, which may predate the refusal of unknown keys: it is
 * read as it was enforced when approved, its unknown keys set aside and named in `ignored`, so an
 * upgrade never stops the start over a text that no one can edit any more (a corrected file is
 * proposed and approved as usual). Anything else wrong still throws.
 */
export function parseApprovedPolicy(text: string, source: string): { policy: Policy; ignored: string[] } {
  const raw = readYaml(text, source);
  const first = validate(raw);
  if (first.ok) return { policy: first.policy, ignored: [] };
  const unknown = first.issues.filter(isUnknownKeys);
  if (!unknown.length) throw invalid(source, first.issues);
  dropUnknownKeys(raw, unknown);
  const again = validate(raw);
  if (!again.ok) throw invalid(source, again.issues);
  return { policy: again.policy, ignored: problemLines(unknown) };
}

/**
 * POLICY_FILE if given; else ./policy.yml; else, only where no real money can move
 * (local mode), the commented example.
 */
export function resolvePolicyPath(policyFile: string | undefined, allowExample: boolean, cwd = process.cwd()): string {
  if (policyFile) {
    const p = resolve(cwd, policyFile);
    if (!existsSync(p)) throw new PolicyError(`POLICY_FILE ${policyFile} does not exist`);
    return p;
  }
  const own = resolve(cwd, 'policy.yml');
  if (existsSync(own)) return own;
  const example = resolve(cwd, 'policy.example.yml');
  if (allowExample && existsSync(example)) return example;
  throw new PolicyError('No policy file: copy policy.example.yml to policy.yml and edit it, or set POLICY_FILE.');
}

export function loadPolicy(path: string): Policy {
  return parsePolicy(readFileSync(path, 'utf8'), path);
}
