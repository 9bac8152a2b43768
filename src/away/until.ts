/**
 * When an away state ends, as typed after `until`: a date (`2026-12-05`, back at 00:00 UTC that
 * day), a date and time in UTC (`2026-12-05 14:30`), or a span from now (`3d`, `36h`). Pure.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?$/;
const SPAN = /^(\d{1,3})\s*(h|d)$/i;

export function parseUntil(text: string, now: number): { ok: true; at: number } | { ok: false; message: string } {
  const t = text.trim().replace(/\s*UTC$/i, '');
  const span = SPAN.exec(t);
  if (span) return { ok: true, at: now + Number(span[1]) * (span[2]!.toLowerCase() === 'd' ? 86_400_000 : 3_600_000) };
  const m = DATE.exec(t);
  if (m) {
    const [y, mo, d, h = '00', mi = '00'] = m.slice(1).map((x) => x ?? undefined) as string[];
    const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi));
    const back = new Date(at);
    // 2026-02-30 is not a date: Date.UTC would roll it into March.
    if (back.getUTCMonth() === Number(mo) - 1 && back.getUTCDate() === Number(d) && Number(h) < 24 && Number(mi) < 60)
      return { ok: true, at };
  }
  return {
    ok: false,
    message: `“${text.slice(0, 40)}” is not a date: write e.g. 2026-12-05 (back at 00:00 UTC that day), 2026-12-05 14:30 (UTC), or 3d.`,
  };
}
