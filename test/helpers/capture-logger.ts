/**
 * A Bolt/WebClient logger that keeps every line in memory instead of printing: tests stay
 * quiet, can assert what was logged (or that a secret never was), and can dump the lines
 * when something fails.
 */
import { LogLevel, type Logger } from '@slack/bolt';

export interface CapturedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  name: string;
  text: string;
}

export interface CaptureLogger extends Logger {
  readonly lines: CapturedLine[];
  /** Every captured line joined, for `expect(logger.text()).not.toContain(secret)`. */
  text(): string;
}

export function createCaptureLogger(level: LogLevel = LogLevel.DEBUG): CaptureLogger {
  const lines: CapturedLine[] = [];
  let current = level;
  let name = '';
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const at =
    (l: CapturedLine['level'], lv: LogLevel) =>
    (...msg: unknown[]): void => {
      if (order.indexOf(lv) < order.indexOf(current)) return;
      lines.push({
        level: l,
        name,
        text: msg
          .map((m) => (typeof m === 'string' ? m : m instanceof Error ? `${m.name}: ${m.message}` : JSON.stringify(m)))
          .join(' '),
      });
    };
  return {
    lines,
    text: () => lines.map((l) => `[${l.level}] ${l.name} ${l.text}`).join('\n'),
    debug: at('debug', LogLevel.DEBUG),
    info: at('info', LogLevel.INFO),
    warn: at('warn', LogLevel.WARN),
    error: at('error', LogLevel.ERROR),
    setLevel: (l) => {
      current = l;
    },
    getLevel: () => current,
    setName: (n) => {
      name = n;
    },
  };
}
