/**
 * The values that must never leave the process in a log line, error message or Slack
 * message. Path-based redaction in the logger catches the fields we know about; scrubbing
 * by value is the backstop for secrets that end up inside free text (an error message
 * quoting a header, a URL carrying the webhook secret).
 */
const REDACTED = '[REDACTED]';
// Short values would scrub innocent text ("1", "abc"); real secrets are longer.
const MIN_SECRET_LENGTH = 6;

export class SecretRegistry {
  private readonly values = new Set<string>();
  private pattern: RegExp | undefined;

  add(...values: Array<string | undefined | null>): void {
    let changed = false;
    for (const v of values) {
      if (!v || v.length < MIN_SECRET_LENGTH) continue;
      // A log line is JSON, and URLs carry encoded text: a secret with a quote or a backslash
      // reaches the output escaped, so its escaped forms are secrets too.
      const json = JSON.stringify(v).slice(1, -1);
      for (const form of [v, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(v)]) {
        if (!this.values.has(form)) {
          this.values.add(form);
          changed = true;
        }
      }
    }
    if (changed) this.pattern = undefined;
  }

  scrub(text: string): string {
    if (this.values.size === 0) return text;
    this.pattern ??= new RegExp(
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }
}

/** One registry per process: config secrets and tokens obtained at run time are added to it. */
export const secrets = new SecretRegistry();
