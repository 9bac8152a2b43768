/**
 * Fault injection: the next N requests whose path starts with a prefix misbehave in a
 * chosen way. The drop faults are what make "did my withdrawal go through?" testable:
 * drop-before-commit loses the request, drop-after-commit loses only the answer.
 */
export type Fault =
  | { kind: 'status'; status: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'drop-after-commit' }
  | { kind: 'drop-before-commit' };

interface Armed {
  prefix: string;
  fault: Fault;
  remaining: number;
}

export class FaultQueue {
  private armed: Armed[] = [];

  inject(pathPrefix: string, fault: Fault, times = 1): void {
    if (!Number.isInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    if (fault.kind === 'status' && (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599)) {
      throw new RangeError(`not an HTTP status: ${fault.status}`);
    }
    if (fault.kind === 'delay' && !(fault.ms >= 0)) throw new RangeError('delay must be >= 0 ms');
    this.armed.push({ prefix: pathPrefix.toLowerCase(), fault, remaining: times });
  }

  /** The first armed fault matching this request target (path + query), consumed once. */
  take(target: string): Fault | undefined {
    const t = target.toLowerCase();
    const hit = this.armed.find((a) => t.startsWith(a.prefix));
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) this.armed = this.armed.filter((a) => a !== hit);
    return hit.fault;
  }

  clear(): void {
    this.armed = [];
  }
}
