//! PIE's burst-allowance and short-queue rules: ns-3.37 `PieQueueDisc` or RFC 8033.

use serde::{Deserialize, Serialize};

/// Quiet time after which ns-3.37's burst allowance may be armed again, ns (its
/// `BURST_RESET_TIMEOUT`, 1.5 s).
pub(super) const BURST_RESET_TIMEOUT_NS: u64 = 1_500_000_000;

/// How the burst allowance is armed and what it does to p.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BurstRule {
    /// ns-3.37 `PieQueueDisc`: armed by the first arrival; p held at 0 while it lasts; armed
    /// again by the first arrival after more than ⌊1.5 s / T_UPDATE⌋ further updates that find
    /// both delays below QDELAY_REF/2 and p = 0 once it has run out.
    Ns3,
    /// RFC 8033 §4.4: MAX_BURST from the start; p updated all along; reset to MAX_BURST at any
    /// update with p = 0 and both delays below QDELAY_REF/2.
    Rfc8033,
}

/// What counts as a short queue, where no early drop happens (RFC 8033 §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShortQueueRule {
    /// ns-3.37: at most 2 packets when the buffer is counted in packets (`limit_bytes` 0),
    /// at most 2·MEAN_PKTSIZE bytes when it is counted in bytes.
    Ns3,
    /// RFC 8033 §4.1: at most 2·MEAN_PKTSIZE bytes.
    Rfc8033,
}

/// The ns-3 burst-allowance states (RFC 8033 has no states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BurstState {
    /// Not armed: the next arrival arms it.
    NoBurst,
    /// Armed, possibly still running.
    Protecting,
    /// Ran out while quiet: counting quiet updates toward a reset.
    InBurst,
}
