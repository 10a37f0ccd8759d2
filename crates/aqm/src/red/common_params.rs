//! The parameters the RED-family algorithms share (RED, Adaptive RED, self-tuning RED and the
//! BetaRED variants): their table entries, with the ranges `validate` checks.

use super::drop_decision::SPACING_NAMES;
use crate::params::{Bound, ParamDoc, Range, NON_NEGATIVE, POSITIVE_FRACTION};

/// The ECN marking limit of RED, ARED and self-tuning RED.
pub(crate) const MARK_P_MAX_DOC: ParamDoc = ParamDoc::new(
    "mark_p_max",
    "",
    POSITIVE_FRACTION,
    "ECN: early drops of ECN-capable packets are marks only while p_b < this, else drops (ns-2 mark_p_)",
);
/// The averaging weight w as every RED-family algorithm but ARED takes it.
pub(crate) const W_DOC: ParamDoc = ParamDoc::new(
    "w",
    "",
    POSITIVE_FRACTION,
    "weight of the averaged queue q_avg (EWMA), per arrival",
);
/// The gentle region of RED, ARED and self-tuning RED.
pub(crate) const GENTLE_DOC: ParamDoc = ParamDoc::new(
    "gentle",
    "",
    Range::Flag,
    "gentle region: p rises linearly from p_max at q_max to 1 at 2·q_max",
);
/// The spacing of drops of RED, ARED and self-tuning RED.
pub(crate) const SPACING_DOC: ParamDoc = ParamDoc::new(
    "spacing",
    "",
    Range::Choice(SPACING_NAMES),
    "spacing of drops: none, uniform (Floyd & Jacobson) or wait (ns-2/ns-3)",
);
/// Byte mode.
pub(crate) const BYTE_MODE_DOC: ParamDoc = ParamDoc::new(
    "byte_mode",
    "",
    Range::Flag,
    "scale the drop probability by packet size / mean_pkt_bytes",
);
/// The idle-time correction.
pub(crate) const IDLE_CORRECTION_DOC: ParamDoc = ParamDoc::new(
    "idle_correction",
    "",
    Range::Flag,
    "decay q_avg over idle periods (Floyd & Jacobson 1993, §11)",
);
/// The minimum threshold of RED and BetaRED.
pub(crate) const Q_MIN_DOC: ParamDoc = ParamDoc::new(
    "q_min_pkts",
    "packets",
    NON_NEGATIVE,
    "minimum threshold q_min: no early drops while q_avg is below it",
);
/// The typical packet size, bytes.
pub(crate) const MEAN_PKT_BYTES_DOC: ParamDoc = ParamDoc::new(
    "mean_pkt_bytes",
    "bytes",
    MEAN_PKT_BYTES,
    "typical packet size: idle correction, byte mode, link rate in packets/s",
);
/// The range of every RED-family packet size, `>= 1`.
pub(crate) const MEAN_PKT_BYTES: Range = Range::Above(Bound::closed(1.0));
/// The small-queue guard of ns-2 and ns-3.
pub(crate) const SMALL_QUEUE_GUARD_DOC: ParamDoc = ParamDoc::new(
    "ns_small_queue_guard",
    "",
    Range::Flag,
    "no early or forced drop while at most one packet is queued (ns-2, ns-3)",
);
