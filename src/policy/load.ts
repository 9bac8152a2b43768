import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument, visit } from 'yaml';
import { policySchema, type Policy } from './schema.js';

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** Parse and validate policy YAML; the error lists every problem with its path. */
export function parsePolicy(text: string, source = 'policy'): Policy {
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
  let raw: unknown;
  try {
    // toJS() throws on what parsing lets through: an alias to no anchor ("*x"), too many aliases.
    raw = doc.toJS();
  } catch (err) {
    throw new PolicyError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  - ${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`,
    );
    throw new PolicyError(`${source} is invalid:\n${lines.join('\n')}`);
  }
  return parsed.data;
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
