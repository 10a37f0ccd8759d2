//! COBALT, CoDel–BLUE Alternate (Palmei, Gupta, Imputato, Morton, Tahiliani, Avallone & Täht,
//! "Design and Evaluation of COBALT Queue Discipline", IEEE LANMAN 2019): the AQM of each flow
//! queue in Linux cake. Two controllers work side by side on the packet at the head:
//!
//! - CoDel's control law, in the form cake gives it: `count` is kept when the sojourn time
//!   falls below target and decays, one step per `interval/√count`, while no signal is given;
//!   `drop_next` doubles as the time of the next signal and as an activity timeout.
//! - BLUE (Feng, Shin, Kandlur & Saha, IEEE/ACM ToN 2002) for flows that do not respond: a
//!   drop probability `p_drop` rises by `increment` when the buffer overflows and falls by
//!   `decrement` when the queue is found empty, at most once per `target`; each departing
//!   packet is dropped with probability `p_drop`, never marked.
//!
//! The reference is ns-3.37's `CobaltQueueDisc` (`cobalt-queue-disc.cc`), which ports the
//! `cobalt_*` functions of Linux `net/sched/sch_cake.c`; where the two differ this file follows
//! ns-3.37 (`docs/aqm/cobalt.md` lists each difference). The decision of ns-3's
//! `CobaltShouldDrop` is [`Aqm::on_dequeue`]; `CobaltQueueFull` is [`Aqm::on_overflow`] and
//! `CobaltQueueEmpty` is [`Aqm::on_empty`], which the host calls where ns-3 calls them.
//!
//! Verdicts: a CoDel signal is [`DequeueVerdict::EarlyDrop`] (the host marks when ECN is in
//! use, as ns-3's `UseEcn`, and drops otherwise); a BLUE drop is
//! [`DequeueVerdict::ForcedDrop`] (ns-3 and Linux: "lack of ECN is deliberate"), and wins over
//! a CoDel mark of the same packet; a `ce_threshold_ms` mark is [`DequeueVerdict::Mark`].
//!
//! The one thing ns-3 does differently after a mark and after a drop is the activity timeout
//! (`drop_next = now` when `drop_next` is still behind `now` and the packet was not dropped).
//! The AQM cannot know which the host chose, so after an early drop that would need the reset
//! it remembers the time of the signal: if the host asks again at that same time (a drop, then
//! the next packet or an empty queue), nothing changes; any other next call means the packet was
//! marked, and the reset is applied then, at the signal's time.

use crate::contract::{
    Aqm, DequeueVerdict, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{AqmParams, Bound, ParamDoc, Range, DURATION_MS, FRACTION};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// COBALT parameters (ns-3.37 `CobaltQueueDisc` attributes; Linux cake's `cobalt_params`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CobaltParams {
    /// `Target`: the acceptable standing sojourn time, and the least time between two changes
    /// of BLUE's `p_drop`, milliseconds.
    pub target_ms: f64,
    /// `Interval`: how long the sojourn time stays above target before the first signal, and
    /// the base spacing of the signals, milliseconds.
    pub interval_ms: f64,
    /// `Increment`: what `p_drop` gains at an overflow (Linux `p_inc`, 1/256).
    pub increment: f64,
    /// `Decrement`: what `p_drop` loses when the queue is found empty (Linux `p_dec`, 1/4096).
    pub decrement: f64,
    /// `BlueThreshold`: a departing packet whose sojourn time exceeds this raises `p_drop` by
    /// `increment` as an overflow would (ns-3 only), milliseconds.
    pub blue_threshold_ms: f64,
    /// `CeThreshold`: mark ECN-capable packets whose sojourn time exceeds this, milliseconds;
    /// 0 turns it off (ns-3's default, `Time::Max()`).
    pub ce_threshold_ms: f64,
    /// `Pdrop`: BLUE's drop probability at the start.
    pub p_drop_initial: f64,
    /// Keep BLUE's last update time in 32 bits of nanoseconds, as ns-3.37's `uint32_t
    /// m_lastUpdateTimeBlue` does: once it wraps (after 4.29 s) the `target` spacing of BLUE's
    /// updates no longer holds. `false`: the full time, as Linux's `blue_timer`.
    pub ns3_blue_timer_wrap: bool,
}

impl Default for CobaltParams {
    /// ns-3.37 `CobaltQueueDisc` defaults: `Target` 5 ms, `Interval` 100 ms, `Increment`
    /// 1/256, `Decrement` 1/4096 (both as Linux cake), `BlueThreshold` 400 ms, `CeThreshold`
    /// off, `Pdrop` 0, and its 32-bit BLUE timer.
    fn default() -> Self {
        CobaltParams {
            target_ms: 5.0,
            interval_ms: 100.0,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            blue_threshold_ms: 400.0,
            ce_threshold_ms: 0.0,
            p_drop_initial: 0.0,
            ns3_blue_timer_wrap: true,
        }
    }
}

/// Intervals from 1 ns to 2^32 − 1 ns: both sources scale the interval by 1/√count in 32-bit
/// arithmetic (`ReciprocalDivide`, `reciprocal_scale`), which would wrap a longer one.
const INTERVAL_MS: Range = Range::Noted(
    &Range::Number(Bound::closed(1e-6), Bound::closed(4294.967295)),
    "at least 1 ns, at most 2^32 - 1 ns",
);

impl AqmParams for CobaltParams {
    const AQM: &'static str = "cobalt";
    const TITLE: &'static str = "COBALT";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "target_ms",
            "ms",
            DURATION_MS,
            "Target: acceptable standing sojourn time; also the least time between p_drop changes",
        ),
        ParamDoc::new(
            "interval_ms",
            "ms",
            INTERVAL_MS,
            "Interval: time above target before the first signal; signals come interval/sqrt(count) apart",
        ),
        ParamDoc::new(
            "increment",
            "",
            FRACTION,
            "BLUE: p_drop gained at an overflow (or a sojourn above blue_threshold_ms)",
        ),
        ParamDoc::new(
            "decrement",
            "",
            FRACTION,
            "BLUE: p_drop lost when the queue is found empty",
        ),
        ParamDoc::new(
            "blue_threshold_ms",
            "ms",
            DURATION_MS,
            "BlueThreshold (ns-3): a sojourn time above it raises p_drop as an overflow does",
        ),
        ParamDoc::new(
            "ce_threshold_ms",
            "ms",
            Range::Noted(
                &Range::Number(Bound::closed(0.0), Bound::closed(1e9)),
                "0: off",
            ),
            "CeThreshold (ns-3): ECN-mark packets whose sojourn time exceeds it; 0: off",
        ),
        ParamDoc::new(
            "p_drop_initial",
            "",
            FRACTION,
            "Pdrop: BLUE's drop probability at the start",
        ),
        ParamDoc::new(
            "ns3_blue_timer_wrap",
            "",
            Range::Flag,
            "BLUE's last update time in 32 bits of ns as ns-3.37 (spacing lost after 4.29 s)",
        ),
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Cobalt::new(self)?))
    }
}

/// Milliseconds to integer nanoseconds, rounded.
fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// `a − b` for two times, signed (Linux `ktime_sub`; ns-3 `int64_t` arithmetic).
fn signed_gap(a_ns: u64, b_ns: u64) -> i128 {
    i128::from(a_ns) - i128::from(b_ns)
}

/// Entries of the table of 1/√count for small counts (Linux and ns-3 `REC_INV_SQRT_CACHE`).
const INV_SQRT_CACHED: usize = 16;

/// One Newton–Raphson step towards 1/√count, in unsigned Q0.32 fixed point (Linux
/// `cobalt_newton_step`, ns-3 `NewtonStep`): y ← y·(3 − count·y²)/2, with the same 64-bit
/// wrapping and the same truncations (the product is taken after a shift by 2 to stay within
/// 64 bits, and the result is cut to 32 bits).
const fn newton_step(y: u32, count: u32) -> u32 {
    let y = y as u64;
    let y_squared = (y * y) >> 32;
    let three_minus = (3u64 << 32).wrapping_sub((count as u64).wrapping_mul(y_squared)) >> 2;
    (three_minus.wrapping_mul(y) >> 31) as u32
}

/// 1/√count for count below [`INV_SQRT_CACHED`], Q0.32 (Linux `cobalt_cache_init`, ns-3
/// `CacheInit`): entry 0 is 0xFFFFFFFF, and each further entry four Newton steps from the one
/// before, so entries 0 and 1 are both the largest value below 1.
const fn inv_sqrt_table() -> [u32; INV_SQRT_CACHED] {
    let mut table = [u32::MAX; INV_SQRT_CACHED];
    let mut y = u32::MAX;
    let mut count = 1;
    while count < INV_SQRT_CACHED {
        let mut k = 0;
        while k < 4 {
            y = newton_step(y, count as u32);
            k += 1;
        }
        table[count] = y;
        count += 1;
    }
    table
}

static INV_SQRT: [u32; INV_SQRT_CACHED] = inv_sqrt_table();

/// COBALT state (Linux `cobalt_vars`; ns-3 `CobaltQueueDisc` members).
#[derive(Clone, Debug)]
struct CobaltVars {
    /// `count`: the signalling frequency; 0 when CoDel is at rest.
    count: u32,
    /// 1/√count in Q0.32 (`rec_inv_sqrt`), from the table below 16 and by one Newton step from
    /// its previous value above.
    rec_inv_sqrt: u32,
    /// `drop_next`: the time of the next signal while above target; the activity timeout
    /// otherwise.
    drop_next_ns: u64,
    /// `dropping`: the last packet was above target (or the buffer overflowed since).
    dropping: bool,
    /// BLUE's drop probability.
    p_drop: f64,
    /// BLUE's last change of `p_drop` (`blue_timer`, ns-3 `m_lastUpdateTimeBlue`).
    blue_timer_ns: u64,
    /// Sojourn time of the last packet seen.
    last_sojourn_ns: u64,
    /// Time of the last early drop whose packet, if marked, resets `drop_next` to that time.
    mark_reset_at_ns: Option<u64>,
}

/// Counters kept by COBALT (informational; the host counts drops and marks itself).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CobaltStats {
    /// CoDel signals ([`DequeueVerdict::EarlyDrop`] verdicts).
    pub codel_signals: u64,
    /// BLUE drops ([`DequeueVerdict::ForcedDrop`] verdicts).
    pub blue_drops: u64,
    /// CE-threshold marks ([`DequeueVerdict::Mark`] verdicts).
    pub ce_marks: u64,
    /// Overflows reported by the host.
    pub overflows: u64,
    /// Empty queues reported by the host.
    pub empties: u64,
    /// Rises of `p_drop` (at overflows or above the BLUE threshold).
    pub p_drop_rises: u64,
    /// Falls of `p_drop`.
    pub p_drop_falls: u64,
}

/// COBALT state machine.
#[derive(Clone, Debug)]
pub struct Cobalt {
    params: CobaltParams,
    target_ns: u64,
    interval_ns: u64,
    blue_threshold_ns: u64,
    ce_threshold_ns: Option<u64>,
    /// Linux `cparams.mtu_time`: a packet is above target only when its sojourn time also
    /// exceeds four of these (0: no such rule, as ns-3.37). Set by CAKE
    /// ([`Cobalt::with_mtu_time_ns`]), not a key.
    mtu_time_ns: u64,
    vars: CobaltVars,
    stats: CobaltStats,
}

impl Cobalt {
    /// A COBALT queue manager with validated parameters.
    pub fn new(params: CobaltParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Cobalt {
            target_ns: ms_to_ns(params.target_ms).max(1),
            interval_ns: ms_to_ns(params.interval_ms).clamp(1, u64::from(u32::MAX)),
            blue_threshold_ns: ms_to_ns(params.blue_threshold_ms).max(1),
            ce_threshold_ns: (params.ce_threshold_ms > 0.0)
                .then(|| ms_to_ns(params.ce_threshold_ms)),
            mtu_time_ns: 0,
            vars: CobaltVars {
                count: 0,
                rec_inv_sqrt: u32::MAX,
                drop_next_ns: 0,
                dropping: false,
                p_drop: params.p_drop_initial,
                blue_timer_ns: 0,
                last_sojourn_ns: 0,
                mark_reset_at_ns: None,
            },
            stats: CobaltStats::default(),
            params,
        })
    }

    /// The same COBALT with Linux's MTU-time rule (`cobalt_should_drop` in
    /// `net/sched/sch_cake.c`): a sojourn time is above target only when it also exceeds four
    /// serialisation times of an MTU, `mtu_time_ns` each (cake's `cparams.mtu_time`, 0 when
    /// unshaped). The ingress-mode term (2·mtu_time·bulk flows) is not applied.
    pub fn with_mtu_time_ns(mut self, mtu_time_ns: u64) -> Self {
        self.mtu_time_ns = mtu_time_ns;
        self
    }

    /// The parameters in force.
    pub fn params(&self) -> &CobaltParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &CobaltStats {
        &self.stats
    }

    /// `count`, CoDel's signalling frequency.
    pub fn count(&self) -> u32 {
        self.vars.count
    }

    /// Whether the last packet was above target (CoDel's dropping state).
    pub fn dropping(&self) -> bool {
        self.vars.dropping
    }

    /// BLUE's drop probability.
    pub fn p_drop(&self) -> f64 {
        self.vars.p_drop
    }

    /// The time of the next CoDel signal (or the activity timeout), ns.
    pub fn drop_next_ns(&self) -> u64 {
        self.vars.drop_next_ns
    }

    /// Control law (Linux `cobalt_control`, ns-3 `ControlLaw`): `t + interval/√count`, the
    /// interval (below 2^32 ns) scaled by `rec_inv_sqrt` in Q0.32 and truncated to whole ns.
    fn control_law(&self, t_ns: u64) -> u64 {
        t_ns.saturating_add((self.interval_ns * u64::from(self.vars.rec_inv_sqrt)) >> 32)
    }

    /// `rec_inv_sqrt` for the new `count` (Linux `cobalt_invsqrt`, ns-3 `InvSqrt`): the table
    /// below [`INV_SQRT_CACHED`], else one Newton step from the previous value.
    fn update_inv_sqrt(&mut self) {
        let v = &mut self.vars;
        v.rec_inv_sqrt = match INV_SQRT.get(v.count as usize) {
            Some(&y) => y,
            None => newton_step(v.rec_inv_sqrt, v.count),
        };
    }

    /// Whether BLUE may change `p_drop` now: more than `target` since its last change
    /// (`now − blue_timer > target`, both sources), with the last change time as stored.
    fn blue_may_change(&self, now_ns: u64) -> bool {
        signed_gap(now_ns, self.vars.blue_timer_ns) > i128::from(self.target_ns)
    }

    /// Record a change of `p_drop` at `now`; with `ns3_blue_timer_wrap` only its low 32 bits,
    /// as ns-3.37's `uint32_t` keeps them.
    fn stamp_blue_timer(&mut self, now_ns: u64) {
        self.vars.blue_timer_ns = if self.params.ns3_blue_timer_wrap {
            now_ns & u64::from(u32::MAX)
        } else {
            now_ns
        };
    }

    /// BLUE's rise (ns-3 `CobaltQueueFull` and the `BlueThreshold` rule; Linux
    /// `cobalt_queue_full`): `p_drop ← min(p_drop + increment, 1)` when allowed now.
    fn blue_rise(&mut self, now_ns: u64) {
        if self.blue_may_change(now_ns) {
            self.vars.p_drop = (self.vars.p_drop + self.params.increment).min(1.0);
            self.stamp_blue_timer(now_ns);
            self.stats.p_drop_rises += 1;
        }
    }

    /// Settle the last early drop before anything else happens at `now`: unless this is the
    /// host asking again at the time of that drop (`follow_up`), the packet was marked, and
    /// ns-3 would have reset `drop_next` to the time of the mark.
    fn settle(&mut self, now_ns: u64, follow_up_possible: bool) {
        if let Some(at_ns) = self.vars.mark_reset_at_ns.take() {
            if !(follow_up_possible && at_ns == now_ns) {
                self.vars.drop_next_ns = at_ns;
            }
        }
    }
}

impl Aqm for Cobalt {
    fn name(&self) -> &'static str {
        "cobalt"
    }

    /// COBALT never acts at arrival; the host enforces the buffer limit and reports overflows
    /// through [`Aqm::on_overflow`].
    fn on_enqueue(&mut self, _: u64, _: PacketView, _: &QueueView, _: &mut Rng) -> EnqueueVerdict {
        EnqueueVerdict::Accept
    }

    /// ns-3.37 `CobaltShouldDrop` (Linux `cobalt_should_drop`) for the packet just dequeued.
    fn on_dequeue(
        &mut self,
        now_ns: u64,
        sojourn_ns: u64,
        _pkt: PacketView,
        _queue: &QueueView,
        rng: &mut Rng,
    ) -> DequeueVerdict {
        self.settle(now_ns, true);
        self.vars.last_sojourn_ns = sojourn_ns;
        // `schedule` keeps in its sign whether now is past drop_next; `next_due` its first value.
        let mut schedule = signed_gap(now_ns, self.vars.drop_next_ns);
        let over_target =
            sojourn_ns > self.target_ns && sojourn_ns > self.mtu_time_ns.saturating_mul(4);
        let mut next_due = self.vars.count > 0 && schedule >= 0;
        if over_target {
            // Above target: the first such packet starts the interval (drop_next = now +
            // interval/√count), and count is at least 1.
            if !self.vars.dropping {
                self.vars.dropping = true;
                self.vars.drop_next_ns = self.control_law(now_ns);
            }
            self.vars.count = self.vars.count.max(1);
        } else {
            self.vars.dropping = false;
        }
        let codel_signal = next_due && self.vars.dropping;
        if codel_signal {
            // A signal: count + 1 (saturating), the next one interval/√count later.
            self.vars.count = self.vars.count.saturating_add(1);
            self.update_inv_sqrt();
            self.vars.drop_next_ns = self.control_law(self.vars.drop_next_ns);
            schedule = signed_gap(now_ns, self.vars.drop_next_ns);
        } else {
            // No signal: count decays by one for each interval/√count that has passed.
            while next_due {
                self.vars.count -= 1;
                self.update_inv_sqrt();
                self.vars.drop_next_ns = self.control_law(self.vars.drop_next_ns);
                schedule = signed_gap(now_ns, self.vars.drop_next_ns);
                next_due = self.vars.count > 0 && schedule >= 0;
            }
        }
        // ns-3 CeThreshold: a mark, where CoDel gave no signal.
        let ce_mark = !codel_signal && self.ce_threshold_ns.is_some_and(|c| sojourn_ns > c);
        // ns-3 BlueThreshold: a long sojourn raises p_drop as an overflow does.
        if sojourn_ns > self.blue_threshold_ns {
            self.blue_rise(now_ns);
        }
        // BLUE: drop with probability p_drop, one draw per packet while p_drop > 0.
        let blue_drop = self.vars.p_drop > 0.0 && rng.uniform() < self.vars.p_drop;
        // drop_next as an activity timeout: at rest, one interval from now; behind now and
        // the packet not dropped, now (after a possible mark: see `settle`).
        if self.vars.count == 0 {
            self.vars.drop_next_ns = now_ns.saturating_add(self.interval_ns);
        } else if schedule > 0 && !blue_drop {
            if codel_signal {
                self.vars.mark_reset_at_ns = Some(now_ns);
            } else {
                self.vars.drop_next_ns = now_ns;
            }
        }
        if blue_drop {
            self.stats.blue_drops += 1;
            DequeueVerdict::ForcedDrop
        } else if codel_signal {
            self.stats.codel_signals += 1;
            DequeueVerdict::EarlyDrop
        } else if ce_mark {
            self.stats.ce_marks += 1;
            DequeueVerdict::Mark
        } else {
            DequeueVerdict::Deliver
        }
    }

    /// ns-3.37 `CobaltQueueFull` (Linux `cobalt_queue_full`): BLUE rises (at most once per
    /// target), and CoDel is due at once: `dropping`, `drop_next = now`, count at least 1.
    fn on_overflow(&mut self, now_ns: u64) {
        self.settle(now_ns, false);
        self.stats.overflows += 1;
        self.blue_rise(now_ns);
        self.vars.dropping = true;
        self.vars.drop_next_ns = now_ns;
        self.vars.count = self.vars.count.max(1);
    }

    /// ns-3.37 `CobaltQueueEmpty` (Linux `cobalt_queue_empty`): BLUE falls (at most once per
    /// target, floor 0), the dropping state ends, and count decays by one step if due.
    fn on_empty(&mut self, now_ns: u64) {
        self.settle(now_ns, true);
        self.stats.empties += 1;
        if self.vars.p_drop > 0.0 && self.blue_may_change(now_ns) {
            self.vars.p_drop = (self.vars.p_drop - self.params.decrement).max(0.0);
            self.stamp_blue_timer(now_ns);
            self.stats.p_drop_falls += 1;
        }
        self.vars.dropping = false;
        if self.vars.count > 0 && signed_gap(now_ns, self.vars.drop_next_ns) >= 0 {
            self.vars.count -= 1;
            self.update_inv_sqrt();
            self.vars.drop_next_ns = self.control_law(self.vars.drop_next_ns);
        }
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["sojourn_ms", "count", "dropping", "p_drop"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.vars.last_sojourn_ns as f64 / 1e6);
        out.push(f64::from(self.vars.count));
        out.push(if self.vars.dropping { 1.0 } else { 0.0 });
        out.push(self.vars.p_drop);
    }
}

#[cfg(test)]
mod tests;
