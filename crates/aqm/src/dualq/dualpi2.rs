//! DualPI2, the Coupled DualQ with a PI2 base AQM (RFC 9332 §2.4, §4 and Appendix A; Linux
//! `net/sched/sch_dualpi2.c`; tc-dualpi2(8) and iproute2's `q_dualpi2.c` for the defaults):
//! the parameters (tc-dualpi2's options, Linux's defaults) and the controller, [`Pi2`]: the
//! base probability p' that a PI controller moves every `tupdate` from the queue delay, the
//! Classic probability p_C = p'² (two independent draws), the coupled L4S probability
//! p_CL = k·p', the native L4S step (or ramp) on the L queue's sojourn time, and the overload
//! rule. The queues, the classifier and the weighted round robin between them run in the host
//! (`crates/sim/src/net/qdisc/dualpi2.rs`), which asks [`Pi2`] for each packet's signal.

use crate::contract::{Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, Bound, ParamDoc, Range, Scheduler, DURATION_MS};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Which ECN codepoints the classifier puts in the L queue (tc-dualpi2 `l4s_ect` and
/// `any_ect`, Linux `ecn_mask`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMask {
    /// ECT(1) and CE (RFC 9331 §5.1, RFC 9332 §2.3): Linux `TC_DUALPI2_ECN_MASK_L4S_ECT`.
    L4sEct,
    /// ECT(0), ECT(1) and CE: every ECN-capable packet (Linux `TC_DUALPI2_ECN_MASK_ANY_ECT`,
    /// for data centres where ECT(0) traffic is scalable).
    AnyEct,
}

/// Names of [`EcnMask`] as written in scenarios.
pub const ECN_MASK_NAMES: &[&str] = &["l4s_ect", "any_ect"];

impl EcnMask {
    /// Whether a packet with ECN field `bits` (RFC 3168's two bits: 0b01 ECT(1), 0b10 ECT(0),
    /// 0b11 CE) goes to the L queue (Linux `dualpi2_skb_classify`: `ect & ecn_mask`).
    pub fn to_l_queue(self, bits: u8) -> bool {
        let mask = match self {
            EcnMask::L4sEct => 0b01,
            EcnMask::AnyEct => 0b11,
        };
        bits & mask != 0
    }
}

/// DualPI2 parameters (keys of `[queue.dualpi2]`; tc-dualpi2's options of the same meaning).
/// The packet limit is the queue's `limit_pkts` (Linux `limit`, default 10000).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DualPi2Params {
    /// The PI controller's target queue delay, ms (`target`).
    pub target_ms: f64,
    /// The interval between probability updates, ms (`tupdate`).
    pub tupdate_ms: f64,
    /// The integral gain α, Hz (`alpha`).
    pub alpha_hz: f64,
    /// The proportional gain β, Hz (`beta`).
    pub beta_hz: f64,
    /// The coupling factor k: p_CL = k·p' (`coupling_factor`).
    pub coupling_factor: f64,
    /// The L queue's step threshold on sojourn time, ms (`step_thresh` as a time).
    pub step_thresh_ms: f64,
    /// The step threshold on the L queue's length instead, packets; 0: the time threshold
    /// applies (`step_thresh` in packets).
    pub step_thresh_pkts: u32,
    /// The width of RFC 9332's ramp above the step threshold, ms; 0: Linux's step.
    pub ramp_range_ms: f64,
    /// The step applies only to packets that find at least this many packets in the L queue
    /// (`min_qlen_step`).
    pub min_qlen_step_pkts: u32,
    /// The C queue's weight in the round robin between the queues, percent
    /// (`classic_protection`); the L queue's is the rest.
    pub c_protection_pct: u32,
    /// Under overload (k·p' > 1) drop L packets with p_C (`drop_on_overload`), or else mark
    /// them all and let the queue grow to its limit (`overflow`).
    pub drop_on_overload: bool,
    /// Decide the coupled and Classic signals at enqueue (`drop_enqueue`) instead of at
    /// dequeue (`drop_dequeue`).
    pub drop_enqueue: bool,
    /// Which ECN codepoints go to the L queue (`l4s_ect`, `any_ect`).
    pub ecn_mask: EcnMask,
}

impl Default for DualPi2Params {
    /// Linux's `dualpi2_reset_default` with RFC 9332 Appendix A's gains: target 15 ms,
    /// tupdate 16 ms, α 0.16 Hz, β 3.2 Hz (Linux passes 41/256 and 819/256 Hz, the nearest
    /// 1/256ths), k 2, a 1 ms step with no minimum length, classic protection 10 %, drop on
    /// overload, decisions at dequeue, ECT(1) and CE to the L queue.
    fn default() -> Self {
        DualPi2Params {
            target_ms: 15.0,
            tupdate_ms: 16.0,
            alpha_hz: 0.16,
            beta_hz: 3.2,
            coupling_factor: 2.0,
            step_thresh_ms: 1.0,
            step_thresh_pkts: 0,
            ramp_range_ms: 0.0,
            min_qlen_step_pkts: 0,
            c_protection_pct: 10,
            drop_on_overload: true,
            drop_enqueue: false,
            ecn_mask: EcnMask::L4sEct,
        }
    }
}

/// Delays and gains from 0 to 10⁶ (ms or Hz).
const UP_TO_1E6: Range = Range::Number(Bound::closed(0.0), Bound::closed(1e6));

impl AqmParams for DualPi2Params {
    const AQM: &'static str = "dualpi2";
    const TITLE: &'static str = "DualPI2";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "target_ms",
            "ms",
            UP_TO_1E6,
            "PI target queue delay (tc-dualpi2 target)",
        ),
        ParamDoc::new(
            "tupdate_ms",
            "ms",
            DURATION_MS,
            "interval between updates of the base probability p'",
        ),
        ParamDoc::new(
            "alpha_hz",
            "Hz",
            UP_TO_1E6,
            "integral gain: p' += alpha*(qdelay - target) each update",
        ),
        ParamDoc::new(
            "beta_hz",
            "Hz",
            UP_TO_1E6,
            "proportional gain: p' += beta*(qdelay - previous qdelay) each update",
        ),
        ParamDoc::new(
            "coupling_factor",
            "",
            Range::Number(Bound::open(0.0), Bound::closed(255.0)),
            "k: coupled L4S probability p_CL = k*p'; Classic p_C = p'^2",
        ),
        ParamDoc::new(
            "step_thresh_ms",
            "ms",
            UP_TO_1E6,
            "mark L packets whose sojourn exceeds this (step; start of the ramp)",
        ),
        ParamDoc::new(
            "step_thresh_pkts",
            "packets",
            Range::Count(0),
            "step on the L queue length instead (0: the time threshold applies)",
        ),
        ParamDoc::new(
            "ramp_range_ms",
            "ms",
            Range::Joint(&UP_TO_1E6, "with step_thresh_pkts 0 when above 0"),
            "RFC 9332 ramp width above step_thresh_ms (0: Linux's step)",
        ),
        ParamDoc::new(
            "min_qlen_step_pkts",
            "packets",
            Range::Count(0),
            "the step applies only to packets finding at least this many in the L queue",
        ),
        ParamDoc::new(
            "c_protection_pct",
            "%",
            Range::CountIn(0, 100),
            "C queue weight of the round robin between the queues (L gets the rest)",
        ),
        ParamDoc::new(
            "drop_on_overload",
            "",
            Range::Flag,
            "when k*p' > 1 drop L packets with p_C (false: mark all, p' capped at 1/k)",
        ),
        ParamDoc::new(
            "drop_enqueue",
            "",
            Range::Flag,
            "decide the coupled and Classic signals at enqueue instead of dequeue",
        ),
        ParamDoc::new(
            "ecn_mask",
            "",
            Range::Choice(ECN_MASK_NAMES),
            "ECN codepoints of the L queue: ECT(1) and CE, or any ECT",
        ),
    ];

    fn validate_joint(&self) -> Result<(), ParamError> {
        if self.ramp_range_ms > 0.0 && self.step_thresh_pkts > 0 {
            return Err(ParamError::new(
                "ramp_range_ms",
                "must be 0 when step_thresh_pkts is above 0 (the ramp is on sojourn time)",
            ));
        }
        Ok(())
    }

    /// DualPI2 is a discipline of two queues that only a simulated port runs
    /// ([`Scheduler::DualPi2`]): there is no AQM of one queue to give, so this refuses
    /// (after checking the parameters, whose errors come first).
    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        self.validate()?;
        Err(ParamError::new(
            "aqm",
            "dualpi2 runs two queues and only in a simulated port",
        ))
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::DualPi2(self.clone())
    }
}

/// What a packet gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Nothing: send it as it is.
    Pass,
    /// A CE mark from the coupled or Classic probability.
    Mark,
    /// A CE mark from the L queue's native step (or ramp).
    StepMark,
    /// A drop.
    Drop,
}

/// The PI2 controller and the coupled probabilities (RFC 9332 Appendix A.1; Linux
/// `calculate_probability`, `must_drop`, `dualpi2_classic_marking`,
/// `dualpi2_scalable_marking`, `do_step_aqm`).
#[derive(Clone, Debug)]
pub struct Pi2 {
    params: DualPi2Params,
    period_ns: u64,
    /// The base probability p'.
    p: f64,
    /// The queue delay at the previous update, s (Linux `last_qdelay`).
    prev_qdelay_s: f64,
    /// When the next update is due, ns.
    next_update_ns: u64,
}

impl Pi2 {
    /// The controller with validated parameters, p' = 0; the first update is due one
    /// `tupdate` after time 0 (Linux starts its timer at `now + tupdate` when the qdisc is
    /// made).
    pub fn new(params: DualPi2Params) -> Result<Self, ParamError> {
        params.validate()?;
        let period_ns = ((params.tupdate_ms * 1e6).round() as u64).max(1);
        Ok(Pi2 {
            params,
            period_ns,
            p: 0.0,
            prev_qdelay_s: 0.0,
            next_update_ns: period_ns,
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &DualPi2Params {
        &self.params
    }

    /// The base probability p'.
    pub fn p_base(&self) -> f64 {
        self.p
    }

    /// The Classic probability p_C = p'² (RFC 9332 §2.4 eq. (1) squared by the base AQM's
    /// output, Appendix A.1 `p_C = p'^2`).
    pub fn p_c(&self) -> f64 {
        self.p * self.p
    }

    /// The coupled L4S probability p_CL = k·p' (RFC 9332 §2.4 eq. (1)), at most 1.
    pub fn p_cl(&self) -> f64 {
        (self.params.coupling_factor * self.p).min(1.0)
    }

    /// Overload: p_CL saturated, k·p' > 1 (RFC 9332 §4.2.3; Linux `must_drop`'s
    /// `local_l_prob > MAX_PROB`). The Classic probability is then above p_Cmax = 1/k², the
    /// value at which p_CL reaches 1.
    pub fn overloaded(&self) -> bool {
        self.params.coupling_factor * self.p > 1.0
    }

    /// When the next update is due, ns.
    pub fn next_update_ns(&self) -> u64 {
        self.next_update_ns
    }

    /// One update at `now_ns` with the queue delay `qdelay_ns` (RFC 9332 Appendix A.1
    /// `dualpi2_update`; Linux `calculate_probability`):
    /// p' ← p' + α·(qdelay − target) + β·(qdelay − qdelay_prev), times in seconds, gains in
    /// Hz, bounded to [0, 1]; without `drop_on_overload`, to [0, 1/k] (Linux caps p_CL at
    /// 100 % so that L and C keep window fairness while the queue overflows).
    pub fn update(&mut self, now_ns: u64, qdelay_ns: u64) {
        let DualPi2Params {
            target_ms,
            alpha_hz,
            beta_hz,
            coupling_factor,
            drop_on_overload,
            ..
        } = self.params;
        let qdelay_s = qdelay_ns as f64 * 1e-9;
        let delta =
            alpha_hz * (qdelay_s - target_ms * 1e-3) + beta_hz * (qdelay_s - self.prev_qdelay_s);
        let ceiling = if drop_on_overload {
            1.0
        } else {
            (1.0 / coupling_factor).min(1.0)
        };
        self.p = (self.p + delta).clamp(0.0, ceiling);
        self.prev_qdelay_s = qdelay_s;
        self.next_update_ns = now_ns.saturating_add(self.period_ns);
    }

    /// The signal for a C-queue packet (Linux `dualpi2_classic_marking`): with probability
    /// p'² (two independent draws, each below p') it is dropped when it is Not-ECT or the
    /// discipline is overloaded, else marked (RFC 3168 for ECT(0)).
    pub fn classic(&self, ect: bool, rng: &mut Rng) -> Signal {
        if !(rng.bernoulli(self.p) && rng.bernoulli(self.p)) {
            return Signal::Pass;
        }
        if self.overloaded() || !ect {
            Signal::Drop
        } else {
            Signal::Mark
        }
    }

    /// The native L4S AQM's probability for an L packet that waited `sojourn_ns` and left
    /// `l_len_pkts` behind it (Linux `do_step_aqm`; RFC 9332 Appendix A.1 `laqm`): with a
    /// packet threshold, 1 when the L queue is longer than it; else, as a step, 1 when the
    /// sojourn exceeds `step_thresh_ms`, or, with a ramp, rising linearly from 0 there to 1 at
    /// `step_thresh_ms + ramp_range_ms`.
    pub fn native_l(&self, sojourn_ns: u64, l_len_pkts: u32) -> f64 {
        let p = &self.params;
        if p.step_thresh_pkts > 0 {
            return f64::from(u8::from(l_len_pkts > p.step_thresh_pkts));
        }
        let over_ms = sojourn_ns as f64 * 1e-6 - p.step_thresh_ms;
        if p.ramp_range_ms > 0.0 {
            (over_ms / p.ramp_range_ms).clamp(0.0, 1.0)
        } else {
            f64::from(u8::from(over_ms > 0.0))
        }
    }

    /// The signal for an L packet (always ECN-capable: the classifier puts only ECT packets
    /// in the L queue). `coupled` says whether the coupled signal applies to it now (Linux
    /// `must_drop`: not below a backlog of 2 MTU, and only at the stage `drop_enqueue`
    /// chooses); `native` is [`Pi2::native_l`]'s probability, 0 where the step does not
    /// apply. Under overload (Linux `dualpi2_scalable_marking`) the packet is dropped with
    /// p_C when `drop_on_overload`, else marked. Otherwise it is marked with
    /// p_L = max(p_CL, p'_L) (RFC 9332 Appendix A.1's combining function; Linux draws the
    /// coupled mark and then applies the 0-or-1 step, which marks with the same
    /// probability); a mark the native AQM decides is a [`Signal::StepMark`].
    pub fn scalable(&self, coupled: bool, native: f64, rng: &mut Rng) -> Signal {
        if coupled && self.overloaded() {
            let drop =
                self.params.drop_on_overload && rng.bernoulli(self.p) && rng.bernoulli(self.p);
            return if drop { Signal::Drop } else { Signal::Mark };
        }
        let p_cl = if coupled { self.p_cl() } else { 0.0 };
        if native >= 1.0 {
            return Signal::StepMark;
        }
        if !rng.bernoulli(p_cl.max(native)) {
            Signal::Pass
        } else if native > p_cl {
            Signal::StepMark
        } else {
            Signal::Mark
        }
    }
}

#[cfg(test)]
mod tests;
