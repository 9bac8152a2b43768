/**
 * Password reset (v2, no session): request a one-time code, then set a new password with it.
 * Neither call is repeated: each may send a mail or change the password.
 */
import type { WalletOperation } from '../errors.js';
import { inputError, rejection, shapeError } from '../failures.js';
import type { HttpResponse } from '../http.js';
import { PATHS } from '../assumptions.js';
import { stringifyJson } from '../json.js';
import { passwordResetOtpRequestSchema, passwordResetRequestSchema, passwordResetResponseSchema } from '../schemas.js';
import { is2xx, JSON_HEADERS, refusal, type WalletCalls } from './calls.js';

export function requestPasswordResetOtp(c: WalletCalls, email: string): Promise<void> {
  return c.guard('passwordResetOtp', async () => {
    const input = passwordResetOtpRequestSchema.safeParse({ email });
    if (!input.success) throw inputError('passwordResetOtp', input.error);
    const res = await c.once(
      'passwordResetOtp',
      { method: 'POST', path: PATHS.passwordResetOtp, headers: { ...JSON_HEADERS }, body: stringifyJson(input.data) },
      c.deadlineFromNow(),
    );
    expectV2Success('passwordResetOtp', res);
  });
}

export function resetPassword(c: WalletCalls, i: { email: string; otp: string; newPassword: string }): Promise<void> {
  return c.guard('passwordReset', async () => {
    c.registry.add(i.otp, i.newPassword);
    const input = passwordResetRequestSchema.safeParse(i);
    if (!input.success) throw inputError('passwordReset', input.error);
    const res = await c.once(
      'passwordReset',
      { method: 'POST', path: PATHS.passwordReset, headers: { ...JSON_HEADERS }, body: stringifyJson(input.data) },
      c.deadlineFromNow(),
    );
    expectV2Success('passwordReset', res);
    if (input.data.email.toLowerCase() === c.options.email.toLowerCase()) c.session.setPassword(input.data.newPassword);
  });
}

function expectV2Success(op: WalletOperation, res: HttpResponse): void {
  if (!is2xx(res.status)) refusal(op, res, 'none');
  if (res.text.trim() === '') return;
  const parsed = passwordResetResponseSchema.safeParse(res.body);
  if (!parsed.success) throw shapeError(op, res, parsed.error);
  if (parsed.data.isSuccessful === false) throw rejection(op, res);
}
