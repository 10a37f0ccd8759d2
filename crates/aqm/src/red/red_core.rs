//! What every RED-family AQM shares: the averaged queue (with its idle correction), the drop
//! decision (with spacing and byte mode), and one implementation of the [`Aqm`] contract. Each
//! algorithm supplies only its drop curve and, if adaptive, its periodic update
//! ([`RedFamily`]).

use super::drop_decision::{DropDecision, Spacing};
use super::red_average::QueueAverage;
use crate::contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView};
use crate::rng::Rng;

/// Averaged queue plus drop decision.
#[derive(Clone, Debug)]
pub struct RedCore {
    average: QueueAverage,
    decision: DropDecision,
    mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet.
    small_queue_guard: bool,
    /// Drop probability p_b of the curve at the last arrival; None when that decision was
    /// settled from bounds on p_b ([`RedCore::decide_within`]), p_b being then the curve's
    /// value at q_avg.
    p: Option<f64>,
    /// An early drop of an ECN-capable packet is left to the host to mark only while p_b is
    /// below this; at or above it the packet is dropped (ns-2 red.cc's `mark_p_` with
    /// `use_mark_p_`). Infinite (the default) keeps every early drop markable.
    mark_p_max: f64,
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
            p: Some(0.0),
            mark_p_max: f64::INFINITY,
        }
    }

    /// The same core, with early drops of ECN-capable packets left markable only while p_b <
    /// `mark_p_max` (forced drops at or above it). Without it every early drop is markable.
    pub fn with_mark_p_max(mut self, mark_p_max: f64) -> Self {
        self.mark_p_max = mark_p_max;
        self
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

    /// The curve's probability at the last arrival. `curve` is the curve in force: unchanged
    /// since that arrival, it gives the value when the decision did not need it (see
    /// [`RedCore::settle_p`]).
    pub fn p(&self, curve: &impl DropCurve) -> f64 {
        self.p
            .unwrap_or_else(|| curve.probability(self.q_avg_pkts()))
    }

    /// Record the curve's probability at the last arrival before `curve` changes, so that
    /// [`RedCore::p`] still reports the value at that arrival.
    pub fn settle_p(&mut self, curve: &impl DropCurve) {
        self.p = Some(self.p(curve));
    }

    /// An arrival finds `queue`: update q_avg and return it.
    pub fn arrival(&mut self, now_ns: u64, queue: &QueueView) -> f64 {
        self.average
            .on_arrival(now_ns, queue.len_pkts, queue.rate_bps, self.mean_pkt_bytes)
    }

    /// Decide on an arrival that found `queue`, given the curve's p_b and whether q_avg is in
    /// the forced region. An early drop of an ECN-capable packet while p_b ≥ `mark_p_max` is
    /// returned as a forced drop, so the port drops it instead of marking it (ns-2 red.cc
    /// `drop_early` with `use_mark_p_`: it marks only while `v_prob1 < mark_p_`). With the
    /// small-queue guard, an arrival finding at most one packet
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
        self.p = Some(p);
        let verdict = if let Some(v) = self.verdict_without_draw(forced, queue) {
            v
        } else if p <= 0.0 {
            self.decision.reset();
            EnqueueVerdict::Accept
        } else if self.decision.decide(p, pkt.size_bytes, rng) {
            self.signal(pkt, p)
        } else {
            EnqueueVerdict::Accept
        };
        self.settle(verdict)
    }

    /// The verdict that needs no draw, with the spacing count reset: the small-queue guard
    /// accepts, a forced region drops; None when the draw decides.
    fn verdict_without_draw(&mut self, forced: bool, queue: &QueueView) -> Option<EnqueueVerdict> {
        let verdict = if self.small_queue_guard && queue.len_pkts <= 1 {
            EnqueueVerdict::Accept
        } else if forced {
            EnqueueVerdict::ForcedDrop
        } else {
            return None;
        };
        self.decision.reset();
        Some(verdict)
    }

    /// An early signal at probability `p_b`: an early drop, which the port turns into a CE
    /// mark for an ECN-capable packet, unless that packet meets p_b ≥ `mark_p_max` (ns-2's
    /// mark_p_), where it is dropped.
    fn signal(&self, pkt: PacketView, p_b: f64) -> EnqueueVerdict {
        if pkt.ect && p_b >= self.mark_p_max {
            EnqueueVerdict::ForcedDrop
        } else {
            EnqueueVerdict::EarlyDrop
        }
    }

    /// An accepted arrival counts for the queue average's idle rule.
    fn settle(&mut self, verdict: EnqueueVerdict) -> EnqueueVerdict {
        if verdict == EnqueueVerdict::Accept {
            self.average.on_accept();
        }
        verdict
    }

    /// [`RedCore::decide`] knowing only bounds 0 < `lo` ≤ p_b ≤ `hi` ≤ 1 of the curve's
    /// probability: the verdict that `decide` gives for every p_b in them, or None, with
    /// nothing changed, when it depends on where p_b lies. Since p_b > 0, the uniform draw
    /// u happens exactly when `decide` would make it, and the applied probability p_a is
    /// non-decreasing in p_b ([`DropDecision::decide_within`]).
    pub fn decide_within(
        &mut self,
        lo: f64,
        hi: f64,
        forced: bool,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> Option<EnqueueVerdict> {
        debug_assert!(0.0 < lo && lo <= hi && hi <= 1.0, "bounds {lo}, {hi}");
        if pkt.ect && lo < self.mark_p_max && self.mark_p_max <= hi {
            return None; // whether a signal is a mark or a drop depends on p_b
        }
        let verdict = if let Some(v) = self.verdict_without_draw(forced, queue) {
            v
        } else if self.decision.decide_within(lo, hi, pkt.size_bytes, rng)? {
            // Every p_b in [lo, hi] is on the same side of mark_p_max (checked above).
            self.signal(pkt, lo)
        } else {
            EnqueueVerdict::Accept
        };
        self.p = None;
        Some(self.settle(verdict))
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
    /// Bounds 0 < lo ≤ p_b ≤ hi ≤ 1 on the curve's probability at `q_avg_pkts`, cheaper than
    /// p_b itself, from which most decisions follow ([`RedCore::decide_within`]); `tight`
    /// asks for narrower ones, at a higher cost, when the first did not settle the decision.
    /// None where the algorithm has none.
    fn probability_bounds(&mut self, _q_avg_pkts: f64, _tight: bool) -> Option<(f64, f64)> {
        None
    }
    /// The traced state.
    fn probe(&self, out: &mut Vec<f64>);
}

impl<T: RedFamily> Aqm for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    /// RED decides on arrival; a departure only notes when the queue went idle.
    fn decides_at_dequeue(&self) -> bool {
        false
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
        let forced = self.curve().forced(q_avg);
        for tight in [false, true] {
            if let Some((lo, hi)) = self.probability_bounds(q_avg, tight) {
                if let Some(verdict) = self
                    .core_mut()
                    .decide_within(lo, hi, forced, pkt, queue, rng)
                {
                    return verdict;
                }
            }
        }
        let p = self.curve().probability(q_avg);
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

    use crate::red::random_early_detection::tests::queue;

    /// p_b = 0.3 with `none` spacing: about 30 % of arrivals are signalled; with
    /// `mark_p_max` 0.1 those of ECN-capable packets are forced drops (never marked), those of
    /// other packets stay early drops; below the threshold ECN-capable ones stay markable.
    #[test]
    fn mark_p_max_turns_ecn_signals_above_it_into_drops() {
        let ect = PacketView {
            size_bytes: 1000,
            ect: true,
        };
        let count = |core: &mut RedCore, p: f64, pkt: PacketView, v: EnqueueVerdict| {
            let mut rng = Rng::from_seed(7);
            (0..10_000)
                .filter(|_| core.decide(p, false, pkt, &queue(5), &mut rng) == v)
                .count()
        };
        let mut core = RedCore::new(0.1, true, Spacing::None, false, 1000.0, true);
        let mut gated = core.clone().with_mark_p_max(0.1);
        let early = count(&mut core, 0.3, ect, EnqueueVerdict::EarlyDrop);
        assert!((2700..3300).contains(&early), "{early}");
        assert_eq!(count(&mut gated, 0.3, ect, EnqueueVerdict::EarlyDrop), 0);
        let forced = count(&mut gated, 0.3, ect, EnqueueVerdict::ForcedDrop);
        assert_eq!(forced, early);
        let not_ect = count(&mut gated, 0.3, PKT, EnqueueVerdict::EarlyDrop);
        assert_eq!(not_ect, early);
        assert_eq!(count(&mut gated, 0.3, PKT, EnqueueVerdict::ForcedDrop), 0);
        let below = count(&mut gated, 0.0999, ect, EnqueueVerdict::EarlyDrop);
        assert!(below > 800 && count(&mut gated, 0.0999, ect, EnqueueVerdict::ForcedDrop) == 0);
        // At exactly the threshold the signal is a drop, as ns-2's strict `v_prob1 < mark_p_`.
        assert_eq!(count(&mut gated, 0.1, ect, EnqueueVerdict::EarlyDrop), 0);
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
