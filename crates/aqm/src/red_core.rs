//! The per-packet machinery every RED-family AQM shares: the averaged queue (with its idle
//! correction) and the drop decision (with spacing and byte mode). Each algorithm supplies its
//! drop curve and, if adaptive, its own update rule.

use crate::contract::{EnqueueVerdict, PacketView, QueueView};
use crate::drop_decision::{DropDecision, Spacing};
use crate::red_average::QueueAverage;
use crate::rng::Rng;

/// Averaged queue plus drop decision.
#[derive(Clone, Debug)]
pub struct RedCore {
    average: QueueAverage,
    decision: DropDecision,
    mean_pkt_bytes: f64,
    /// Drop probability p_b of the curve at the last arrival.
    p: f64,
}

impl RedCore {
    /// A core with EWMA weight `w` and the given drop-decision options.
    pub fn new(
        w: f64,
        idle_correction: bool,
        spacing: Spacing,
        byte_mode: bool,
        mean_pkt_bytes: f64,
    ) -> Self {
        RedCore {
            average: QueueAverage::new(w, idle_correction),
            decision: DropDecision::new(spacing, byte_mode, mean_pkt_bytes),
            mean_pkt_bytes,
            p: 0.0,
        }
    }

    /// Current q_avg, packets.
    pub fn q_avg_pkts(&self) -> f64 {
        self.average.value()
    }

    /// The curve's probability at the last arrival.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// An arrival: update q_avg, evaluate `curve(q_avg) = (p_b, forced)`, and decide.
    pub fn enqueue(
        &mut self,
        now_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
        curve: impl Fn(f64) -> (f64, bool),
    ) -> EnqueueVerdict {
        let q_avg =
            self.average
                .on_arrival(now_ns, queue.len_pkts, queue.rate_bps, self.mean_pkt_bytes);
        let (p, forced) = curve(q_avg);
        self.p = p;
        if forced {
            self.decision.reset();
            EnqueueVerdict::ForcedDrop
        } else if p <= 0.0 {
            self.decision.reset();
            EnqueueVerdict::Accept
        } else if self.decision.decide(p, pkt.size_bytes, rng) {
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    /// A departure left `queue` behind (starts an idle period when it is empty).
    pub fn departure(&mut self, now_ns: u64, queue: &QueueView) {
        self.average.on_departure(now_ns, queue.len_pkts);
    }
}
