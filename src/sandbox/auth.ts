/**
 * Merchant authentication: login, refresh, password reset, and the two header schemes
 * (Bearer token for v2, ApiKey for v1 and withdrawal). Shapes follow
 * docs/wallet-service-choices.md. Tokens are opaque random strings held in memory.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { KYB_ADVICE } from '../wallet/enums.js';
import { problem, v2Fail, v2Ok, type Reply } from './envelopes.js';
import { describeIssues, header, plainJsonObject } from './body.js';
import type { SandboxRequest } from './http.js';
import type { Merchant, SandboxState } from './state.js';

export const OTP_LIFETIME_MS = 10 * 60_000;

interface Grant {
  email: string;
  expiresAt: number;
}

export interface Lifetimes {
  accessMs: number;
  refreshMs: number;
}

export class TokenStore {
  private readonly access = new Map<string, Grant>();
  private readonly refresh = new Map<string, Grant>();

  constructor(
    private readonly now: () => number,
    readonly lifetimes: Lifetimes,
  ) {}

  issue(email: string): { token: string; refreshToken: string; expiresAtTimestamp: number } {
    const token = `sbx_at_${randomBytes(24).toString('base64url')}`;
    const refreshToken = `sbx_rt_${randomBytes(24).toString('base64url')}`;
    const t = this.now();
    const expiresAtTimestamp = t + this.lifetimes.accessMs;
    this.access.set(token, { email, expiresAt: expiresAtTimestamp });
    this.refresh.set(refreshToken, { email, expiresAt: t + this.lifetimes.refreshMs });
    return { token, refreshToken, expiresAtTimestamp };
  }

  /** The merchant e-mail of a live access token. Expiry is inclusive of the instant itself. */
  verifyAccess(token: string): string | undefined {
    const g = this.access.get(token);
    return g && this.now() < g.expiresAt ? g.email : undefined;
  }

  /** Refresh tokens rotate: a used one is gone, so a replayed refresh token fails. */
  consumeRefresh(token: string): string | undefined {
    const g = this.refresh.get(token);
    if (!g) return undefined;
    this.refresh.delete(token);
    return this.now() < g.expiresAt ? g.email : undefined;
  }

  expireAccess(): void {
    for (const g of this.access.values()) g.expiresAt = Number.NEGATIVE_INFINITY;
  }

  expireRefresh(): void {
    for (const g of this.refresh.values()) g.expiresAt = Number.NEGATIVE_INFINITY;
  }
}

export interface AuthDeps {
  state: SandboxState;
  tokens: TokenStore;
  log: Logger;
  now: () => number;
}

const INVALID_LOGIN = 'Invalid Login Credentials';

function session(deps: AuthDeps, m: Merchant, message: string): Reply {
  const t = deps.tokens.issue(m.email);
  return v2Ok({ ...t, email: m.email, businessName: m.businessName, roles: ['Merchant'] }, message);
}

function kybBlock(m: Merchant): Reply | undefined {
  if (m.kyb === 'Approved') return undefined;
  return v2Fail(403, `Login blocked: merchant KYB status is ${m.kyb}. ${KYB_ADVICE[m.kyb] ?? ''}`.trim(), {
    kybStatus: m.kyb,
  });
}

const loginBody = z.object({ email: z.string().min(1), password: z.string().min(1) });

export function login(deps: AuthDeps, req: SandboxRequest): Reply {
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v2Fail(400, parsed.message);
  const body = loginBody.safeParse(parsed.value);
  if (!body.success) return v2Fail(400, describeIssues(body.error));
  const m = deps.state.merchant(body.data.email);
  // One message for every failure so the response does not reveal which e-mails exist.
  if (!m || m.password !== body.data.password || m.role !== 'Merchant') return v2Fail(400, INVALID_LOGIN);
  return kybBlock(m) ?? session(deps, m, 'Login successful');
}

const refreshBody = z.object({ refreshToken: z.string().min(1), token: z.string().optional() });

export function refresh(deps: AuthDeps, req: SandboxRequest): Reply {
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v2Fail(400, parsed.message);
  const body = refreshBody.safeParse(parsed.value);
  if (!body.success) return v2Fail(400, describeIssues(body.error));
  const email = deps.tokens.consumeRefresh(body.data.refreshToken);
  const m = email ? deps.state.merchant(email) : undefined;
  if (m?.role !== 'Merchant') return v2Fail(400, 'Invalid refresh token');
  return kybBlock(m) ?? session(deps, m, 'Token refreshed');
}

export class OtpStore {
  private readonly otps = new Map<string, { otp: string; expiresAt: number }>();
  private readonly last = new Map<string, string>();

  constructor(private readonly now: () => number) {}

  issue(email: string): string {
    const otp = String(randomInt(0, 1_000_000)).padStart(6, '0');
    this.otps.set(email.toLowerCase(), { otp, expiresAt: this.now() + OTP_LIFETIME_MS });
    this.last.set(email.toLowerCase(), otp);
    return otp;
  }

  /** Single use: a correct OTP is spent, an expired one is forgotten. */
  consume(email: string, otp: string): boolean {
    const entry = this.otps.get(email.toLowerCase());
    if (!entry) return false;
    if (this.now() >= entry.expiresAt) {
      this.otps.delete(email.toLowerCase());
      return false;
    }
    if (entry.otp !== otp) return false;
    this.otps.delete(email.toLowerCase());
    return true;
  }

  lastOtp(email: string): string | undefined {
    return this.last.get(email.toLowerCase());
  }
}

const otpRequestBody = z.object({ email: z.string().min(1) });

export function requestOtp(deps: AuthDeps & { otps: OtpStore }, req: SandboxRequest): Reply {
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v2Fail(400, parsed.message);
  const body = otpRequestBody.safeParse(parsed.value);
  if (!body.success) return v2Fail(400, describeIssues(body.error));
  const m = deps.state.merchant(body.data.email);
  // Unknown e-mails get the same answer, without an OTP, so the endpoint cannot be used to probe accounts.
  if (m) {
    const otp = deps.otps.issue(m.email);
    // The sandbox has no mail server: its log is where the OTP is "delivered".
    deps.log.info(`sandbox password reset OTP for ${m.email}: ${otp} (valid 10 minutes)`);
  }
  return v2Ok(null, 'If the e-mail is registered, a one-time password has been sent');
}

const resetBody = z.object({
  email: z.string().min(1),
  otp: z.string().min(1),
  newPassword: z.string().min(8, 'must be at least 8 characters'),
});

export function resetPassword(deps: AuthDeps & { otps: OtpStore }, req: SandboxRequest): Reply {
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v2Fail(400, parsed.message);
  const body = resetBody.safeParse(parsed.value);
  if (!body.success) return v2Fail(400, describeIssues(body.error));
  const m = deps.state.merchant(body.data.email);
  if (!m || !deps.otps.consume(m.email, body.data.otp.trim())) return v2Fail(400, 'Invalid or expired OTP');
  m.password = body.data.newPassword;
  return v2Ok(null, 'Password has been reset');
}

function credentials(req: SandboxRequest): { scheme: string; value: string } | undefined {
  const h = header(req, 'authorization');
  const match = h?.trim().match(/^(\S+)\s+(.+)$/);
  return match ? { scheme: match[1]!.toLowerCase(), value: match[2]!.trim() } : undefined;
}

export type AuthResult = { ok: true; merchant: Merchant } | { ok: false; reply: Reply };

function unauthorized(req: SandboxRequest, detail: string, challenge: string): AuthResult {
  return { ok: false, reply: problem(401, detail, req.target.split('?')[0] ?? '/', { 'www-authenticate': challenge }) };
}

/** `Authorization: ApiKey <secret>` (v1 endpoints and withdrawal). */
export function requireApiKey(deps: AuthDeps, req: SandboxRequest): AuthResult {
  const c = credentials(req);
  if (c?.scheme !== 'apikey')
    return unauthorized(req, 'An Authorization header with the ApiKey scheme is required', 'ApiKey');
  const m = deps.state.merchantByApiKey(c.value);
  if (!m) return unauthorized(req, 'The API key is not valid', 'ApiKey');
  return { ok: true, merchant: m };
}

/** `Authorization: Bearer <token>` (v2); the transaction listing also takes ApiKey, as the public SDK sends it. */
export function requireBearer(deps: AuthDeps, req: SandboxRequest, opts: { allowApiKey?: boolean } = {}): AuthResult {
  const c = credentials(req);
  if (c?.scheme === 'apikey' && opts.allowApiKey) return requireApiKey(deps, req);
  if (c?.scheme !== 'bearer') return unauthorized(req, 'A Bearer access token is required', 'Bearer');
  const email = deps.tokens.verifyAccess(c.value);
  const m = email ? deps.state.merchant(email) : undefined;
  if (!m) return unauthorized(req, 'The access token is invalid or has expired', 'Bearer error="invalid_token"');
  return { ok: true, merchant: m };
}
