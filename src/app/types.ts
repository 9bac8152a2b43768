/**
 * What startApp takes and what it gives back (app.ts re-exports both).
 */
import type { NoticeThrottleOptions } from '../withdrawals/notice-throttle.js';
import type { DestinationStream } from 'pino';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { HttpServer } from '../http/server.js';
import type { LocalWorkspace } from '../local/workspace.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/registry.js';
import type { OutboxOptions } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Sandbox, SandboxOptions } from '../sandbox/index.js';
import type { SlackApp } from '../slack/app.js';
import type { StoreOptions } from '../store/index.js';

export interface StartOptions {
  config: Config;
  logger?: Logger;
  /** Where log lines go when no logger is given (tests capture them). */
  logDestination?: DestinationStream;
  /** Use this policy instead of loading the file. */
  policy?: Policy;
  /**
   * Watch the policy file for changes (default true). Tests that rewrite the file turn it off
   * and call `checkPolicyFile()` themselves, so a watch event never races their own check.
   */
  watchPolicyFile?: boolean;
  now?: () => number;
  /**
   * The store can no longer make memory equal to the disk (it could not even read the disk
   * back after a failed write): the process must stop (main.ts exits; restart recovers from
   * disk). A full disk is not fatal: the store refuses writes until it has room again.
   */
  onFatal?: (err: Error) => void;
  /** Aborts a start still waiting to lead (with DATABASE_URL: a standby asked to stop). */
  signal?: AbortSignal;
  /** Store tuning and its write seam (tests of a failing disk where no real one can be made). */
  store?: Pick<StoreOptions, 'probeIntervalMs' | 'writeGate'>;
  /** The embedded store's ceiling in records (tests lower it); default EMBEDDED_CEILING_RECORDS. */
  storeCeiling?: number;
  /** Options of the embedded sandbox (tests shorten its webhook delays). */
  sandbox?: Partial<SandboxOptions>;
  /** Tuning the tests need (pacing, backoff); production uses the outbox's defaults. */
  outbox?: Partial<
    Pick<OutboxOptions, 'paceMs' | 'baseBackoffMs' | 'maxBackoffMs' | 'burstThreshold' | 'unknownOutcomeDelayMs'>
  >;
  /** How often a notification may prompt a question about a withdrawal (tests of several in a row); default 5 s apart. */
  noticeThrottle?: NoticeThrottleOptions;
}

export interface RunningApp {
  url: string;
  port: number;
  deps: Deps;
  sandbox?: Sandbox;
  slack?: SlackApp;
  /** Local mode: the workspace page and its Web API. */
  local?: LocalWorkspace;
  http: HttpServer;
  /** This app's metrics registry (one per app: several apps may run in one process). */
  metrics: Metrics;
  /** Where /metrics is served; undefined when METRICS_PORT=0. */
  metricsUrl?: string;
  stop(): Promise<void>;
}
