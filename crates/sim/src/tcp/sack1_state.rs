//! What ns-2's Sack1 keeps between ACKs on top of the sender's shared state: its estimate of
//! the segments in flight during recovery, where its search for holes to resend goes on, and
//! whether a timeout came since the last ACK of new data. The sender holds it;
//! `recovery_sack1.rs` reads and updates it.

/// Sack1's own recovery variables.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sack1State {
    /// Estimate of the segments in flight during recovery (ns-2's pipe_).
    pub(super) pipe_pkts: i64,
    /// Holes below this were already resent in this episode (the scoreboard's h_seqno_).
    pub(super) retransmit_from: u32,
    /// A timeout happened and no ACK of new data since (ns-2's timeout_).
    pub(super) after_timeout: bool,
}
