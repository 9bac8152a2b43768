/**
 * The digest, built from its inputs and nothing else (no I/O, no clock): the transactions the
 * service listed, the withdrawal requests, the balances (if any) and the previous balance
 * snapshot. Sums are decimals, never floats; the chart's series are exact decimal text too
 * (only the worker turns them into bar heights).
 */
import type { TransactionRecord } from '../wallet/schemas.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import type { Batch } from '../batches/types.js';
import { digestBatches } from './batches.js';
import { Dec } from '../money/decimal.js';
import { currentValueAt, type PriceSnapshot } from '../prices/index.js';
import {
  type BalanceLine,
  type BalanceSnapshot,
  CHART_DAYS,
  CHART_MAX_PANELS,
  type ChartPanel,
  type Digest,
  type DigestBalance,
  type DigestLine,
  type DigestMovement,
  type DigestValueTotal,
  LARGEST_COUNT,
} from './types.js';

const DAY = 86_400_000;

export interface DigestInput {
  now: number;
  /** Whole days summed, back from `now` (1 = the last 24 hours). */
  days: number;
  /** Every transaction of at least the last max(days, CHART_DAYS) days (more is ignored). */
  records: readonly TransactionRecord[];
  /** The service had more pages than were read. */
  truncated: boolean;
  /** Why, in words ("incomplete: 1,200 of 1,450 records (page 3 could not be read)"), when it is known. */
  incomplete?: string;
  withdrawals: readonly WithdrawalRequest[];
  /** undefined: unavailable. */
  balances?: readonly BalanceLine[];
  /** The latest snapshot of an earlier UTC day, if any. */
  previous?: BalanceSnapshot;
  /**
   * The client of a transaction by its hash (lower case), where the app knows it (the deposit
   * notifications, its own withdrawal requests): the service's transaction list does not say.
   */
  clients?: ReadonlyMap<string, string>;
  /** The allowlist's label of a destination (the payee), where it has one. */
  payeeOf?: (network: string, address: string) => string | undefined;
  /** The price cache when the digest is built: values in USD (absent: no values). */
  prices?: PriceSnapshot;
  /** Every batch payout (their rows are among `withdrawals`); absent: the digest says nothing of batches. */
  batches?: readonly Batch[];
}

/** USD text of an amount at the snapshot's price, or undefined without a fresh one. */
function usd(prices: PriceSnapshot | undefined, currency: string, amount: string): string | undefined {
  if (!prices) return undefined;
  const v = currentValueAt(prices, currency, amount);
  return v.kind === 'known' ? v.usd : undefined;
}

/** A total over parts valued in USD; a currency without a price is named apart, never summed as 0. */
function total(parts: ReadonlyArray<{ currency: string; amount: string }>, prices: PriceSnapshot): DigestValueTotal {
  let sum = new Dec(0);
  const unpriced = new Set<string>();
  for (const p of parts) {
    if (new Dec(p.amount).isZero()) continue;
    const v = usd(prices, p.currency, p.amount);
    if (v === undefined) unpriced.add(p.currency);
    else sum = sum.plus(v);
  }
  return { usd: sum.toFixed(2), unpriced: [...unpriced].sort() };
}

/** The lines, balances and movements with their values, and the totals across currencies. */
function withValues(d: Digest, prices: PriceSnapshot | undefined): Digest {
  if (!prices) return d;
  const lines = d.lines.map((l) => {
    const dep = usd(prices, l.currency, l.deposits.total);
    const wd = usd(prices, l.currency, l.withdrawals.total);
    return dep !== undefined && wd !== undefined ? { ...l, value: { deposits: dep, withdrawals: wd } } : l;
  });
  const largest = d.largest.map((m) => {
    const v = usd(prices, m.currency, m.amount);
    return v === undefined ? m : { ...m, value: v };
  });
  const balances = d.balances && {
    ...d.balances,
    lines: d.balances.lines.map((b) => {
      const v = usd(prices, b.currency, b.balance);
      return v === undefined ? b : { ...b, value: v };
    }),
    value: total(
      d.balances.lines.map((b) => ({ currency: b.currency, amount: b.balance })),
      prices,
    ),
  };
  return {
    ...d,
    lines,
    largest,
    ...(balances ? { balances } : {}),
    value: {
      deposits: total(
        d.lines.map((l) => ({ currency: l.currency, amount: l.deposits.total })),
        prices,
      ),
      withdrawals: total(
        d.lines.map((l) => ({ currency: l.currency, amount: l.withdrawals.total })),
        prices,
      ),
      at: prices.now,
    },
  };
}

export function currencyOf(r: TransactionRecord): string {
  return r.currency?.name ?? (r.currencyName || '?');
}

export function networkOf(r: TransactionRecord): string {
  return r.network?.name ?? r.networkName;
}

function shortAddress(a: string): string {
  return a.length <= 13 ? a : `${a.slice(0, 6)}…${a.slice(-4)}`;
}

/** Who the money came from or went to, in a short form a person recognises: the client, else the address. */
export function counterparty(r: TransactionRecord, clients?: ReadonlyMap<string, string>): string {
  const client = r.hash ? clients?.get(r.hash.toLowerCase()) : undefined;
  const addr = r.type === 'deposit' ? r.fromAddress : r.toAddress;
  if (r.type === 'deposit' && client) return client;
  if (addr) return client ? `${shortAddress(addr)} (${client})` : shortAddress(addr);
  return client ?? 'unknown';
}

export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function sumLines(records: readonly TransactionRecord[]): DigestLine[] {
  const by = new Map<string, { dep: Dec; depN: number; wd: Dec; wdN: number; failed: number; unrecognised: number }>();
  for (const r of records) {
    const cur = currencyOf(r);
    const acc = by.get(cur) ?? { dep: new Dec(0), depN: 0, wd: new Dec(0), wdN: 0, failed: 0, unrecognised: 0 };
    // Only what the service says succeeded is money that moved; a status the app does not
    // recognise is neither, and is shown apart so someone checks it in the wallet.
    if (r.status === 'failed') acc.failed++;
    else if (r.status !== 'successful') acc.unrecognised++;
    else if (r.type === 'deposit') {
      acc.dep = acc.dep.plus(r.amount);
      acc.depN++;
    } else if (r.type === 'withdrawal') {
      acc.wd = acc.wd.plus(r.amount);
      acc.wdN++;
    }
    by.set(cur, acc);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, a]) => ({
      currency,
      deposits: { count: a.depN, total: a.dep.toFixed() },
      withdrawals: { count: a.wdN, total: a.wd.toFixed() },
      failed: a.failed,
      ...(a.unrecognised ? { unrecognised: a.unrecognised } : {}),
    }));
}

function balances(lines: readonly BalanceLine[], previous: BalanceSnapshot | undefined): Digest['balances'] {
  const before = new Map(previous?.lines.map((l) => [`${l.currency}\u0000${l.network}`, l.balance]));
  const out: DigestBalance[] = [...lines]
    .sort((a, b) => a.currency.localeCompare(b.currency) || a.network.localeCompare(b.network))
    .map((l) => {
      const prev = before.get(`${l.currency}\u0000${l.network}`);
      return { ...l, change: prev === undefined ? null : new Dec(l.balance).minus(prev).toFixed() };
    });
  return previous ? { lines: out, since: previous.at } : { lines: out };
}

function expiredIn(w: WithdrawalRequest, from: number, to: number): boolean {
  if (w.state !== 'expired') return false;
  const mark = [...w.history].reverse().find((h) => h.state === 'expired');
  const at = Date.parse(mark?.at ?? w.expiresAt);
  return at >= from && at < to;
}

/** A withdrawal's destination, payee and source client: "to Exchange hot wallet (0x1111…1111), from client wallet …". */
function outflow(r: TransactionRecord, input: Pick<DigestInput, 'clients' | 'withdrawals' | 'payeeOf'>) {
  if (r.type !== 'withdrawal' || !r.toAddress) return undefined;
  const ours = r.reference ? input.withdrawals.find((w) => w.merchantReference === r.reference) : undefined;
  const client = ours?.clientEmail ?? (r.hash ? input.clients?.get(r.hash.toLowerCase()) : undefined);
  const payee = input.payeeOf?.(networkOf(r), r.toAddress);
  return { address: shortAddress(r.toAddress), ...(payee ? { payee } : {}), ...(client ? { client } : {}) };
}

/** Each list's first, then each one's second, and so on, up to `max`. */
function inTurn<T>(lists: readonly T[][], max: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < max && lists.some((l) => l.length > i); i++)
    for (const list of lists) if (list[i] && out.length < max) out.push(list[i]!);
  return out;
}

/**
 * The period's largest movements. With prices they are ranked by USD value across currencies
 * (issue 40: taken in turn per currency, a $31.5k BTC withdrawal was left out behind smaller
 * movements of other currencies); movements of a currency without a price cannot be ranked
 * against the others, so each such currency's largest follow in turn, in at most two places of
 * their own (named in the message), never valued as 0. Without prices, amounts of different
 * currencies do not compare: each currency's largest in turn, and the message says so.
 */
function largest(
  records: readonly TransactionRecord[],
  input: Pick<DigestInput, 'clients' | 'withdrawals' | 'payeeOf' | 'prices'>,
): { movements: DigestMovement[]; by: NonNullable<Digest['largestBy']> } {
  const { clients, prices } = input;
  const byCurrency = new Map<string, TransactionRecord[]>();
  for (const r of records) {
    if (r.status !== 'successful' || r.type === 'unknown') continue;
    const list = byCurrency.get(currencyOf(r)) ?? [];
    list.push(r);
    byCurrency.set(currencyOf(r), list);
  }
  const byAmount = (list: TransactionRecord[]) => list.sort((a, b) => new Dec(b.amount).comparedTo(a.amount));
  const currencies = [...byCurrency.keys()].sort((a, b) => a.localeCompare(b));
  const priced = prices ? currencies.filter((c) => usd(prices, c, '1') !== undefined) : [];
  const unpriced = currencies.filter((c) => !priced.includes(c));
  let chosen: TransactionRecord[];
  if (priced.length === 0)
    chosen = inTurn(
      currencies.map((c) => byAmount(byCurrency.get(c)!)),
      LARGEST_COUNT,
    );
  else {
    const valued = priced
      .flatMap((c) => byCurrency.get(c)!.map((r) => ({ r, v: new Dec(usd(prices, c, r.amount)!) })))
      .sort((a, b) => b.v.comparedTo(a.v));
    const apart = inTurn(
      unpriced.map((c) => byAmount(byCurrency.get(c)!)),
      Math.min(2, LARGEST_COUNT - 1),
    );
    chosen = [...valued.slice(0, LARGEST_COUNT - apart.length).map((x) => x.r), ...apart];
  }
  const movements = chosen.map((r) => {
    const to = outflow(r, input);
    return {
      type: r.type as 'deposit' | 'withdrawal',
      currency: currencyOf(r),
      network: networkOf(r),
      amount: new Dec(r.amount).toFixed(),
      party: counterparty(r, clients),
      ...(to ? { to } : {}),
      ...(r.timestamp ? { at: r.timestamp.getTime() } : {}),
    };
  });
  return { movements, by: { by: priced.length ? 'value' : 'currency', unpriced: priced.length ? unpriced : [] } };
}

/** The chart covers the last CHART_DAYS days, or the period asked when it is longer (issue 40: `digest 31`). */
function chart(
  records: readonly TransactionRecord[],
  now: number,
  span: number,
  prices?: PriceSnapshot,
): Digest['chart'] {
  const days: string[] = [];
  for (let i = Math.max(CHART_DAYS, span) - 1; i >= 0; i--) days.push(utcDayOf(now - i * DAY));
  const index = new Map(days.map((d, i) => [d, i]));
  const sums = new Map<string, { dep: Dec[]; wd: Dec[]; n: number }>();
  for (const r of records) {
    if (r.status !== 'successful' || !r.timestamp || r.type === 'unknown') continue;
    const i = index.get(utcDayOf(r.timestamp.getTime()));
    if (i === undefined || r.timestamp.getTime() > now) continue;
    const cur = currencyOf(r);
    const s = sums.get(cur) ?? {
      dep: days.map(() => new Dec(0)),
      wd: days.map(() => new Dec(0)),
      n: 0,
    };
    const col = r.type === 'deposit' ? s.dep : s.wd;
    col[i] = col[i]!.plus(r.amount);
    s.n++;
    sums.set(cur, s);
  }
  const value = prices && sums.size ? valuePanel(sums, prices) : undefined;
  // The busiest currencies (by number of movements) get a panel; the text has every one.
  const panels: ChartPanel[] = [...sums.entries()]
    .sort(([a, x], [b, y]) => y.n - x.n || a.localeCompare(b))
    .slice(0, CHART_MAX_PANELS - (value ? 1 : 0))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, s]) => ({
      currency,
      deposits: s.dep.map((d) => d.toFixed()),
      withdrawals: s.wd.map((d) => d.toFixed()),
    }));
  return { days, panels: value ? [value, ...panels] : panels };
}

/**
 * Every currency's daily sums in USD, as the chart's first panel (issue 24): at the digest's
 * price (the cache holds current prices only: the label says so); a currency without a price is
 * named in the label and left out, never drawn as 0.
 */
function valuePanel(sums: ReadonlyMap<string, { dep: Dec[]; wd: Dec[] }>, prices: PriceSnapshot): ChartPanel {
  const days = [...sums.values()][0]!.dep.length;
  const dep = Array.from({ length: days }, () => new Dec(0));
  const wd = Array.from({ length: days }, () => new Dec(0));
  const unpriced: string[] = [];
  for (const [currency, s] of sums) {
    if (usd(prices, currency, '1') === undefined) {
      unpriced.push(currency);
      continue;
    }
    for (let i = 0; i < days; i++) {
      dep[i] = dep[i]!.plus(usd(prices, currency, s.dep[i]!.toFixed()) ?? 0);
      wd[i] = wd[i]!.plus(usd(prices, currency, s.wd[i]!.toFixed()) ?? 0);
    }
  }
  const without = unpriced.length ? `, without ${unpriced.sort().join(', ')}` : '';
  return {
    currency: `All currencies in USD at today's price${without}`,
    value: true,
    deposits: dep.map((d) => d.toFixed(2)),
    withdrawals: wd.map((d) => d.toFixed(2)),
  };
}

export function buildDigest(input: DigestInput): Digest {
  const to = input.now;
  const from = to - input.days * DAY;
  const inPeriod = input.records.filter((r) => {
    // A record without a time was listed by the service for the period asked: it counts.
    const t = r.timestamp?.getTime();
    return t === undefined || (t >= from && t <= to);
  });
  const top = largest(inPeriod, input);
  const batches = input.batches ? digestBatches(input.batches, input.withdrawals, from, to) : undefined;
  return withValues(
    {
      period: { from, to, days: input.days },
      lines: sumLines(inPeriod),
      records: inPeriod.length,
      truncated: input.truncated,
      ...(input.incomplete ? { incomplete: input.incomplete } : {}),
      ...(input.balances ? { balances: balances(input.balances, input.previous) } : {}),
      approvals: {
        pending: input.withdrawals.filter((w) => w.state === 'pending').length,
        expired: input.withdrawals.filter((w) => expiredIn(w, from, to)).length,
        unknown: input.withdrawals.filter((w) => w.state === 'unknown').length,
      },
      ...(batches ? { batches } : {}),
      largest: top.movements,
      largestBy: top.by,
      chart: chart(input.records, to, input.days, input.prices),
    },
    input.prices,
  );
}
