/**
 * The one table of alert kinds: for each kind the wallet's notifications can be read as, how it
 * is read (parse mapping), checked (claim rule), routed, mentioned, counted (metric label) and
 * when its failure is news. Everything else derives from it: `AlertKind` is its keys, so every
 * `Record<AlertKind, …>` (the words and renderers in src/slack/alert-kind-words.ts) stops
 * compiling until a new kind has its entry there too.
 *
 * A leaf (it imports nothing): the alerts domain, the policy schema (route kinds) and the
 * metrics all read it, and none of them may import the others for it.
 *
 * Claim rule: every notification is a claim (ARCHITECTURE.md invariant 14) until the wallet's
 * history shows its own record (src/alerts/claims.ts); `listedAs` says which records may be it,
 * `checkedBy` how they are looked for. A kind the history cannot show stays a claim for good.
 */

/** A transaction-list record's type, as the wallet client reads it. */
export type ListedType = 'deposit' | 'withdrawal';

export interface AlertKindRow {
  /** The wallet's webhook transaction types (WEBHOOK_TYPES names, src/wallet/enums.ts) read as this kind. */
  wireTypes: readonly string[];
  /**
   * The key space its transactions are filed under (src/alerts/parse.ts): one for a family told
   * under several types (a merchant deposit is a deposit); undefined: its type name as sent.
   */
  keySpace: string | undefined;
  /**
   * A payout we requested ourselves: keyed by our merchantReference (fixed before it was sent),
   * its amount the amount requested, and its status its request's (the service's own answer).
   */
  ours: boolean;
  /**
   * The types the wallet's history may list this kind as; a record of another type with the
   * same hash is not this transaction's record. Empty: the history cannot show it.
   */
  listedAs: readonly ListedType[];
  /**
   * sweep: many at once, a window of the deposit list per call (sweep.ts; deposits come in
   * bursts); hash: one look-up by hash each (verify.ts; few, and often our own); none: never.
   */
  checkedBy: 'sweep' | 'hash' | 'none';
  /** What a policy route names it by (`channels.routes[].kind`); null: only a route for `any` takes it. */
  routeKey: string | null;
  /** Its `kind` label on the webhook counter (src/metrics/registry.ts). */
  metric: string;
  /** Large ones are @here'd (a post of its own, once the history confirms it: posting.ts). */
  mentions: boolean;
  /**
   * When its failure keeps a message of its own: always, or only if it was ever told as pending
   * (a deposit that never arrived moved no money: a line of a batch message says it).
   */
  failureOfNote: 'always' | 'if-seen-pending';
  /** Money going out: a failure only a notification tells of is a claim, never "did not leave". */
  outgoing: boolean;
  /** Whether we read its fields at all (false: a shape we do not know, shown with its raw fields). */
  readable: boolean;
}

export const ALERT_KINDS = {
  // Merchant deposits are read as deposits: one key space, one record type.
  deposit: {
    wireTypes: ['DEPOSIT', 'MERCHANT_DEPOSIT'],
    keySpace: 'DEPOSIT',
    ours: false,
    listedAs: ['deposit'],
    checkedBy: 'sweep',
    routeKey: 'deposit',
    metric: 'deposit',
    mentions: true,
    failureOfNote: 'if-seen-pending',
    outgoing: false,
    readable: true,
  },
  withdrawal: {
    wireTypes: ['WITHDRAW'],
    keySpace: 'WITHDRAW',
    ours: true,
    listedAs: ['withdrawal'],
    checkedBy: 'hash',
    routeKey: 'withdrawal',
    metric: 'withdrawal',
    mentions: false,
    failureOfNote: 'always',
    outgoing: true,
    readable: true,
  },
  // Money paid out of the merchant's wallet: the list knows only Deposit and Withdrawal.
  remittance: {
    wireTypes: ['REMITTANCE'],
    keySpace: undefined,
    ours: false,
    listedAs: ['withdrawal'],
    checkedBy: 'hash',
    routeKey: 'remittance',
    metric: 'remittance',
    mentions: false,
    failureOfNote: 'always',
    outgoing: true,
    readable: true,
  },
  // Between wallets: the list may show either side.
  transfer: {
    wireTypes: ['TRANSFER'],
    keySpace: undefined,
    ours: false,
    listedAs: ['deposit', 'withdrawal'],
    checkedBy: 'hash',
    routeKey: 'transfer',
    metric: 'transfer',
    mentions: false,
    failureOfNote: 'always',
    outgoing: false,
    readable: true,
  },
  // A shape we do not read has no amount or type we could hold the history to.
  unknown: {
    wireTypes: [],
    keySpace: undefined,
    ours: false,
    listedAs: [],
    checkedBy: 'none',
    routeKey: null,
    metric: 'unknown',
    mentions: false,
    failureOfNote: 'always',
    outgoing: false,
    readable: false,
  },
} as const satisfies Record<string, AlertKindRow>;

export type AlertKind = keyof typeof ALERT_KINDS;

/** Every kind's row, typed as the row (not its literal values). */
export const KIND_RULES: Readonly<Record<AlertKind, AlertKindRow>> = ALERT_KINDS;

export const ALERT_KIND_NAMES = Object.keys(ALERT_KINDS) as AlertKind[];

/** The kind a notification's canonical transaction type is read as; a type no row names is 'unknown'. */
export function kindOfType(typeName: string | undefined): AlertKind {
  if (typeName === undefined) return 'unknown';
  return ALERT_KIND_NAMES.find((k) => KIND_RULES[k].wireTypes.includes(typeName)) ?? 'unknown';
}

type RouteKey = Exclude<(typeof ALERT_KINDS)[AlertKind]['routeKey'], null>;

/** What a policy route's `kind` may say, besides `any`. */
export const ROUTE_KINDS = ALERT_KIND_NAMES.flatMap((k) => ALERT_KINDS[k].routeKey ?? []) as RouteKey[];

/** The webhook counter's `kind` labels: one per row ('unknown' also counts refusals). */
export const METRIC_KINDS = [...new Set(ALERT_KIND_NAMES.map((k) => KIND_RULES[k].metric))];

/** Whether alerts of this kind are ever checked against the wallet's history. */
export const checkable = (kind: AlertKind): boolean => KIND_RULES[kind].checkedBy !== 'none';
