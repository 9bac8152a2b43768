/** One approval as recorded on a request (types.ts re-exports it): who, when, which places it filled, for whom. */
export interface Approval {
  user: string;
  at: string;
  /** The tier's must_include entries (user or group ids) this approver satisfied when approving. */
  satisfies: string[];
  /**
   * Given with a current authenticator code (`verified`) or a passkey confirmation bound to this
   * withdrawal (`passkey`); a re-check under a lower step_up_above or passkey_above drops approvals without the proof it needs.
   */
  stepUp?: 'verified' | 'passkey';
  /**
   * Given by a delegate in place of these people, who were away (src/away): one vote for all of
   * them, counted within their groups and tiers.
   */
  for?: string[];
  /**
   * The delegations it was given under, read in the approval's commit: whom, the away record's
   * time it was set (its identity), and the must_include places only that person's role filled.
   * Those places count at the send only while that delegation stands: ended early (`/treasury
   * back`, an admin, a new away state), they are no longer filled by this approval.
   */
  delegations?: Delegated[];
}

export interface Delegated {
  user: string;
  setAt: string;
  satisfies: string[];
}
