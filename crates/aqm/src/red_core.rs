//! What every RED-family AQM shares: the averaged queue (with its idle correction), the drop
//! decision (with spacing and byte mode), and one implementation of the [`Aqm`] contract. Each
//! algorithm supplies only its drop curve and, if adaptive, its periodic update
//! ([`RedFamily`]).

use crate::contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView};
use crate::drop_decision::{DropDecision, Spacing};
use crate::red_average::QueueAverage;
use crate::rng::Rng;

/// Averaged queue plus drop decision.
#[derive(Clone, Debug)]
pub struct RedCore {
    average: QueueAverage,
    decision: DropDecision,
    mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet.
    small_queue_guard: bool,
    /// Drop probability p_b of the curve at the last arrival.
    p: f64,
}

impl RedCore {
    /// A core with EWMA weight `w` and the given drop-decision options; with
    /// `small_queue_guard`, no arrival finding at most one packet queued is dropped.
    pub fn new(
        w: f64,
        idle_correction: bool,
        spacing: Spacing,
        byte_mode: bool,
        mean_pkt_bytes: f64,
        small_queue_guard: bool,
    ) -> Self {
        RedCore {
            average: QueueAverage::new(w, idle_correction),
            decision: DropDecision::new(spacing, byte_mode, mean_pkt_bytes),
            mean_pkt_bytes,
            small_queue_guard,
            p: 0.0,
        }
    }

    /// Start from q_avg = `q_avg_pkts` (scripted tests).
    #[cfg(test)]
    pub(crate) fn set_q_avg(&mut self, q_avg_pkts: f64) {
        self.average.set_value(q_avg_pkts);
    }

    /// Current q_avg, packets.
    pub fn q_avg_pkts(&self) -> f64 {
        self.average.value()
    }

    /// The curve's probability at the last arrival.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// An arrival finds `queue`: update q_avg and return it.
    pub fn arrival(&mut self, now_ns: u64, queue: &QueueView) -> f64 {
        self.average
            .on_arrival(now_ns, queue.len_pkts, queue.rate_bps, self.mean_pkt_bytes)
    }

    /// Decide on an arrival that found `queue`, given the curve's p_b and whether q_avg is in
    /// the forced region. With the small-queue guard, an arrival finding at most one packet
    /// queued is accepted whatever q_avg is (ns-2 red.cc and ns-3 RedQueueDisc drop only when
    /// q_avg ≥ min_th and the queue holds more than one packet), which also resets the count
    /// of the spacing, as both do.
    ///
    /// Panics if p_b is not a probability (NaN, infinite or outside [0, 1]): a broken curve
    /// must stop the run, never turn into silent drop tail.
    pub fn decide(
        &mut self,
        p: f64,
        forced: bool,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        assert!(
            (0.0..=1.0).contains(&p),
            "drop probability {p} is not in [0, 1]"
        );
        self.p = p;
        let guarded = self.small_queue_guard && queue.len_pkts <= 1;
        let verdict = if guarded {
            self.decision.reset();
            EnqueueVerdict::Accept
        } else if forced {
            self.decision.reset();
            EnqueueVerdict::ForcedDrop
        } else if p <= 0.0 {
            self.decision.reset();
            EnqueueVerdict::Accept
        } else if self.decision.decide(p, pkt.size_bytes, rng) {
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        };
        if verdict == EnqueueVerdict::Accept {
            self.average.on_accept();
        }
        verdict
    }

    /// A departure left `queue` behind (starts an idle period when it is empty).
    pub fn departure(&mut self, now_ns: u64, queue: &QueueView) {
        self.average.on_departure(now_ns, queue.len_pkts);
    }
}

/// A RED-family drop curve: p_b at an averaged queue, and where drops become forced.
pub trait DropCurve {
    /// Drop probability p_b at averaged queue `q_avg_pkts`.
    fn probability(&self, q_avg_pkts: f64) -> f64;
    /// Whether every arrival is dropped regardless of ECN at `q_avg_pkts`.
    fn forced(&self, q_avg_pkts: f64) -> bool;
}

/// A periodic update: every `period`, starting one period after time 0.
#[derive(Clone, Copy, Debug)]
pub struct Periodic {
    period_ns: u64,
    next_ns: u64,
}

impl Periodic {
    /// Every `period_s` seconds.
    pub fn every_s(period_s: f64) -> Self {
        let period_ns = (period_s * 1e9).round() as u64;
        Periodic {
            period_ns,
            next_ns: period_ns,
        }
    }

    /// The period, ns.
    pub fn period_ns(&self) -> u64 {
        self.period_ns
    }

    /// When the next update is due.
    pub fn next_ns(&self) -> u64 {
        self.next_ns
    }

    /// The update due now ran at `now_ns`.
    pub fn ran(&mut self, now_ns: u64) {
        self.next_ns = now_ns + self.period_ns;
    }
}

/// The parts in which the RED-family algorithms differ. Implementing it gives the full
/// [`Aqm`] contract: q_avg on every arrival, the curve, the drop decision, the idle-time
/// tracking at departures, and the periodic update if there is one.
pub trait RedFamily {
    /// The drop curve type.
    type Curve: DropCurve;
    /// Name as written in scenarios.
    const NAME: &'static str;
    /// Names of the traced state, in the order of [`RedFamily::probe`].
    const PROBE_NAMES: &'static [&'static str];
    /// The shared machinery.
    fn core(&self) -> &RedCore;
    /// The shared machinery, mutably.
    fn core_mut(&mut self) -> &mut RedCore;
    /// The drop curve in force.
    fn curve(&self) -> &Self::Curve;
    /// The periodic update, for adaptive variants.
    fn periodic(&self) -> Option<&Periodic> {
        None
    }
    /// Run the periodic update at `now_ns` (adaptive variants).
    fn update_at(&mut self, _now_ns: u64) {}
    /// An arrival at `now_ns` has just updated q_avg to `q_avg_pkts`, before the curve is
    /// read (adaptive variants that adapt at arrivals).
    fn after_average(&mut self, _now_ns: u64, _q_avg_pkts: f64) {}
    /// The traced state.
    fn probe(&self, out: &mut Vec<f64>);
}

impl<T: RedFamily> Aqm for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn on_enqueue(
        &mut self,
        now_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        let q_avg = self.core_mut().arrival(now_ns, queue);
        self.after_average(now_ns, q_avg);
        let (p, forced) = (self.curve().probability(q_avg), self.curve().forced(q_avg));
        self.core_mut().decide(p, forced, pkt, queue, rng)
    }

    fn on_dequeue(
        &mut self,
        now_ns: u64,
        _: u64,
        _: PacketView,
        queue: &QueueView,
        _: &mut Rng,
    ) -> DequeueVerdict {
        self.core_mut().departure(now_ns, queue);
        DequeueVerdict::Deliver
    }

    fn next_timer_ns(&self) -> Option<u64> {
        self.periodic().map(Periodic::next_ns)
    }

    fn on_timer(&mut self, now_ns: u64, _queue: &QueueView, _rng: &mut Rng) {
        self.update_at(now_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        T::PROBE_NAMES
    }

    fn probe(&self, out: &mut Vec<f64>) {
        RedFamily::probe(self, out);
    }

    fn averaged_queue_pkts(&self) -> Option<f64> {
        Some(self.core().q_avg_pkts())
    }

    fn drop_probability_at(&self, q_avg_pkts: f64) -> Option<f64> {
        Some(self.curve().probability(q_avg_pkts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKT: PacketView = PacketView {
        size_bytes: 1000,
        ect: false,
    };

    fn queue(len_pkts: u32) -> QueueView {
        QueueView {
            len_pkts,
            len_bytes: u64::from(len_pkts) * 1000,
            limit_pkts: 1000,
            limit_bytes: 0,
            rate_bps: 50e6,
        }
    }

    #[test]
    #[should_panic(expected = "not in [0, 1]")]
    fn a_nan_probability_stops_the_run() {
        let mut core = RedCore::new(0.1, true, Spacing::None, false, 1000.0, true);
        core.decide(f64::NAN, false, PKT, &queue(5), &mut Rng::from_seed(1));
    }

    #[test]
    #[should_panic(expected = "not in [0, 1]")]
    fn a_probability_above_one_stops_the_run() {
        let mut core = RedCore::new(0.1, true, Spacing::None, false, 1000.0, true);
        core.decide(1.5, false, PKT, &queue(5), &mut Rng::from_seed(1));
    }
}
