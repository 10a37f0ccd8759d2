//! The contract between an AQM and the queue that hosts it.
//!
//! The host (a simulator port, the Python stepper, a model) owns the packets and the buffer;
//! the AQM only decides. The host enforces the buffer limit itself: an AQM that accepts a
//! packet into a full buffer still sees the packet lost to overflow, which the host counts
//! apart from the AQM's own early drops.

use crate::rng::Rng;
use std::fmt;

/// The queue as the AQM sees it at a decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueView {
    /// Packets waiting in the buffer (not counting the one on the wire).
    pub len_pkts: u32,
    /// Bytes waiting in the buffer.
    pub len_bytes: u64,
    /// Buffer size in packets.
    pub limit_pkts: u32,
    /// Buffer size in bytes; 0 when the buffer is counted in packets only.
    pub limit_bytes: u64,
    /// Rate of the link the queue feeds, bits per second.
    pub rate_bps: f64,
}

#[cfg(test)]
impl QueueView {
    /// A packet-counted buffer of `limit_pkts` holding `len_pkts` packets of 1000 bytes, feeding
    /// a link of `rate_bps` (unit tests).
    pub(crate) fn of_pkts(len_pkts: u32, limit_pkts: u32, rate_bps: f64) -> Self {
        QueueView {
            len_pkts,
            len_bytes: u64::from(len_pkts) * 1000,
            limit_pkts,
            limit_bytes: 0,
            rate_bps,
        }
    }
}

/// The link an AQM is built for: its rate and its buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkContext {
    /// Link rate, bits per second.
    pub rate_bps: f64,
    /// Buffer size B, packets.
    pub buffer_pkts: u32,
}

/// The packet a decision is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketView {
    /// Size on the wire, bytes.
    pub size_bytes: u32,
    /// Whether the packet's sender is ECN-capable (ECT set).
    pub ect: bool,
}

/// What the AQM says about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueVerdict {
    /// Let it into the buffer.
    Accept,
    /// A congestion signal: the host marks the packet CE when both it and the sender use ECN,
    /// and drops it otherwise ("unforced" drop in ns-3's words).
    EarlyDrop,
    /// Drop regardless of ECN ("forced" drop).
    ForcedDrop,
}

/// What the AQM says about the packet at the head of the queue (sojourn-time AQMs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueVerdict {
    /// Send it.
    Deliver,
    /// A congestion signal at dequeue: mark if ECN is in use, otherwise drop and ask again.
    EarlyDrop,
    /// Drop regardless of ECN, and ask again (COBALT's BLUE drops, which ns-3 and Linux never
    /// turn into marks).
    ForcedDrop,
    /// Mark the packet CE when both the queue and the packet use ECN; send it in any case,
    /// never drop it (ns-3's `CeThreshold` marks).
    Mark,
}

/// An AQM algorithm. Times are integer nanoseconds since the start of the run.
pub trait Aqm {
    /// Short name, as used in scenario files.
    fn name(&self) -> &'static str;

    /// Decide on an arriving packet. `queue` is the state before the packet joins.
    fn on_enqueue(
        &mut self,
        now_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict;

    /// Decide on the head packet as it leaves, `sojourn_ns` after it joined. `queue` is the
    /// state after it left. The default delivers every packet. An AQM that overrides this
    /// only to observe departures says so in [`Aqm::decides_at_dequeue`].
    fn on_dequeue(
        &mut self,
        _now_ns: u64,
        _sojourn_ns: u64,
        _pkt: PacketView,
        _queue: &QueueView,
        _rng: &mut Rng,
    ) -> DequeueVerdict {
        DequeueVerdict::Deliver
    }

    /// Whether [`Aqm::on_dequeue`] may drop or mark. When it never does (`false`), a FIFO
    /// host knows each packet's departure as soon as the packet joins (the link sends what is
    /// ahead of it back to back) and may send it on then, calling `on_dequeue` at the
    /// departure's time. The default, `true`, is always safe.
    fn decides_at_dequeue(&self) -> bool {
        true
    }

    /// The host dropped a packet of this queue because the buffer (or the discipline holding
    /// this queue) was full: an arriving packet refused, or a queued packet dropped to make
    /// room. Called after the drop, at the time of the drop. The default does nothing.
    fn on_overflow(&mut self, _now_ns: u64) {}

    /// The host asked this queue for a packet and it had none: the link went idle with the
    /// queue empty, or the drops of [`Aqm::on_dequeue`] emptied it (ns-3 calls `DoDequeue` on
    /// an empty queue disc when its device asks for a packet; Linux cake meets the empty flow
    /// queue in its dequeue). The default does nothing.
    fn on_empty(&mut self, _now_ns: u64) {}

    /// When the AQM next wants [`Aqm::on_timer`] called, if ever.
    fn next_timer_ns(&self) -> Option<u64> {
        None
    }

    /// Periodic work (ARED's max_p update, PIE's probability update, ...), on this AQM's state
    /// alone. Under flow queueing a flow queue's timers run when a packet next joins or leaves
    /// that flow queue, each with its own `now_ns` and the queue as it was then.
    fn on_timer(&mut self, _now_ns: u64, _queue: &QueueView, _rng: &mut Rng) {}

    /// Names of the state values [`Aqm::probe`] reports, in order (for example `q_avg`, `p`).
    fn probe_names(&self) -> &'static [&'static str];

    /// Current state values, in the order of [`Aqm::probe_names`], appended to `out`.
    fn probe(&self, out: &mut Vec<f64>);

    /// The averaged queue the AQM acts on, packets, if it keeps one.
    fn averaged_queue_pkts(&self) -> Option<f64> {
        None
    }

    /// The drop probability the AQM's curve gives for an averaged queue of `q_avg_pkts` in
    /// its current state, for AQMs that have such a curve (the RED family).
    fn drop_probability_at(&self, _q_avg_pkts: f64) -> Option<f64> {
        None
    }
}

/// A parameter outside its allowed range: which one, and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// Parameter name as in the scenario file (for example `p_max`).
    pub field: String,
    /// What is allowed, in words.
    pub message: String,
}

impl ParamError {
    /// A new error for `field`.
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        ParamError {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ParamError {}

/// The rate of the link an AQM is built for, bits per second: a finite number > 0, else the
/// error every AQM gives for it.
pub fn check_rate_bps(rate_bps: f64) -> Result<f64, ParamError> {
    if rate_bps > 0.0 && rate_bps.is_finite() {
        Ok(rate_bps)
    } else {
        Err(ParamError::new("rate_bps", "must be a number > 0"))
    }
}
