//! PI, the proportional-integral AQM controller of Hollot, Misra, Towsley & Gong ("On
//! designing improved controllers for AQM routers supporting TCP flows", INFOCOM 2001; Li et
//! al. 2014 §2.3 eq. (5)–(7)), as ns-2.35's `Queue/PI` (`queue/pi.cc`) runs it. A timer
//! samples the instantaneous queue `w_hz` times a second and moves the drop probability by
//! p ← p + a·(q − q_ref) − b·(q_old − q_ref); each arrival is dropped (or marked) with
//! probability p.

use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, Bound, ParamDoc, Range, FRACTION, NON_NEGATIVE};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// PI parameters (ns-2.35 `Queue/PI` variables in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PiParams {
    /// a, coefficient of the current queue error, per packet (`a_`).
    pub a: f64,
    /// b, coefficient of the previous sample's queue error, per packet (`b_`).
    pub b: f64,
    /// Sampling frequency of the controller, Hz (`w_`).
    pub w_hz: f64,
    /// The target queue q_ref, packets (`qref_`).
    pub q_ref_pkts: f64,
}

impl Default for PiParams {
    /// Li et al. 2014 §3.1: "the default parameters in NS2", a = 1.822e-5, b = 1.816e-5,
    /// w = 170 Hz, with the paper's 300-packet target (ns-2's `qref_` default is 50).
    fn default() -> Self {
        PiParams {
            a: 1.822e-5,
            b: 1.816e-5,
            w_hz: 170.0,
            q_ref_pkts: 300.0,
        }
    }
}

impl AqmParams for PiParams {
    const AQM: &'static str = "pi";
    const TITLE: &'static str = "PI";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "a",
            "1/packet",
            FRACTION,
            "a = K_p + K_I/w: weight of the current queue error q(k) - q_ref",
        ),
        ParamDoc::new(
            "b",
            "1/packet",
            FRACTION,
            "b = K_p: weight of the previous queue error q(k-1) - q_ref",
        ),
        ParamDoc::new(
            "w_hz",
            "Hz",
            Range::Number(Bound::open(0.0), Bound::closed(1e9)),
            "sampling frequency w: p is updated every 1/w seconds",
        ),
        ParamDoc::new("q_ref_pkts", "packets", NON_NEGATIVE, "target queue q_ref"),
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Pi::new(self)?))
    }
}

/// PI's state.
#[derive(Clone, Debug)]
struct PiVars {
    /// The drop probability.
    p: f64,
    /// The queue at the previous sample, packets.
    q_old_pkts: u32,
    /// When the next update is due, ns.
    next_update_ns: u64,
}

/// Counters kept by PI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PiStats {
    /// Probability updates run.
    pub updates: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts.
    pub early_drops: u64,
}

/// PI state machine.
#[derive(Clone, Debug)]
pub struct Pi {
    params: PiParams,
    period_ns: u64,
    vars: PiVars,
    stats: PiStats,
}

impl Pi {
    /// A PI controller with validated parameters. The first update is due at time 0 (ns-2
    /// runs one when the queue is reset at the start of the run), then every 1/`w_hz`.
    pub fn new(params: PiParams) -> Result<Self, ParamError> {
        params.validate()?;
        let period_ns = ((1e9 / params.w_hz).round() as u64).max(1);
        Ok(Pi {
            params,
            period_ns,
            vars: PiVars {
                p: 0.0,
                q_old_pkts: 0,
                next_update_ns: 0,
            },
            stats: PiStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &PiParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &PiStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.vars.p
    }

    /// One update, Li et al. 2014 eq. (6)–(7) in Hollot et al.'s and ns-2's form:
    /// p(k) = p(k−1) + a·(q(k) − q_ref) − b·(q(k−1) − q_ref), clamped to [0, 1], with q(k)
    /// the instantaneous queue (packets waiting) at the sample. With e(k) = q(k) − q_ref this
    /// is eq. (7)'s Δp = K_p·(e(k) − e(k−1)) + K_I·T·e(k) for K_p = b and K_I·T = a − b.
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
    fn update(&mut self, queue: &QueueView) {
        let PiParams {
            a, b, q_ref_pkts, ..
        } = self.params;
        let v = &mut self.vars;
        let q = f64::from(queue.len_pkts);
        let q_old = f64::from(v.q_old_pkts);
        v.p = (v.p + a * (q - q_ref_pkts) - b * (q_old - q_ref_pkts)).clamp(0.0, 1.0);
        assert!(
            (0.0..=1.0).contains(&v.p),
            "drop probability {} is not in [0, 1]",
            v.p
        );
        v.q_old_pkts = queue.len_pkts;
        self.stats.updates += 1;
    }
}

impl Aqm for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// An arrival that finds the buffer full is left to the host, which drops it (ns-2's
    /// forced drop); any other is dropped with probability p ([`EnqueueVerdict::EarlyDrop`],
    /// which the host turns into a mark for an ECN-capable packet on an ECN queue, as ns-2's
    /// `setbit_` does), whatever the queue length.
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        if queue.len_pkts >= queue.limit_pkts || !rng.bernoulli(self.vars.p) {
            return EnqueueVerdict::Accept;
        }
        self.stats.early_drops += 1;
        EnqueueVerdict::EarlyDrop
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.vars.next_update_ns)
    }

    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        self.update(queue);
        self.vars.next_update_ns = now_ns.saturating_add(self.period_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "queue_error_pkts"]
    }

    /// p, and the queue error q(k) − q_ref of the latest sample.
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.vars.p);
        out.push(f64::from(self.vars.q_old_pkts) - self.params.q_ref_pkts);
    }
}

#[cfg(test)]
mod tests;
