/** Bolt's Logger interface on top of our pino logger, so Bolt's lines are redacted and scrubbed too. */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../log.js';

const TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

export function boltLogger(base: Logger): BoltLogger {
  let log = base.child({ component: 'bolt' });
  const text = (msgs: unknown[]) =>
    msgs.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  return {
    // Bolt logs a line per ack at debug; the text is only built when it would be written.
    debug: (...m: unknown[]) => {
      if (log.isLevelEnabled('debug')) log.debug(text(m));
    },
    info: (...m: unknown[]) => log.info(text(m)),
    warn: (...m: unknown[]) => log.warn(text(m)),
    error: (...m: unknown[]) => log.error(text(m)),
    // Bolt asks to lower its own level in development; our LOG_LEVEL stays in charge.
    setLevel: () => undefined,
    getLevel: () => (Object.entries(TO_PINO).find(([, v]) => v === base.level)?.[0] as LogLevel) ?? LogLevel.INFO,
    setName: (name: string) => {
      log = base.child({ component: name });
    },
  };
}
