//! IAPI, the intelligent adaptive PI controller (Sun, Chan & Zukerman, "IAPI: an intelligent
//! adaptive PI active queue management scheme", Computer Communications 35(18), 2012), as Li
//! et al. (2014) §2.4 writes it: the discrete PI controller of Hollot, Misra, Towsley & Gong
//! (INFOCOM 2001) in ns-2's form, sampled at w Hz, whose integral gain grows with the size of
//! the queue-length error (eq. (8)), and whose probability is scaled at each arrival by the
//! queue it finds, p′ = (q/q_ref)·p.

use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, Bound, Limit, ParamDoc, Range};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// IAPI parameters (ns-2 `Queue/PI` names in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IapiParams {
    /// Target queue length q_ref, packets (`qref_`).
    pub q_ref_pkts: f64,
    /// Coefficient a of e(k) in the PI update (`a_`): a = k_p + k_i0·T.
    pub a: f64,
    /// Coefficient b of e(k−1) in the PI update (`b_`): b = k_p.
    pub b: f64,
    /// Sampling frequency w, Hz (`w_`): T = 1/w.
    pub sample_hz: f64,
    /// Error threshold e* of eq. (8), packets.
    pub e_star_pkts: f64,
}

impl Default for IapiParams {
    /// Li et al. (2014) §3.1 and §2.4: the original PI's ns-2 defaults a = 1.822·10⁻⁵,
    /// b = 1.816·10⁻⁵, w = 170 Hz, with the 300-packet target. **Reconstruction**: e* = 3
    /// packets (see docs/aqm/iapi.md; the value of IAPI's ns-2 `e_thres_`).
    fn default() -> Self {
        IapiParams {
            q_ref_pkts: 300.0,
            a: 1.822e-5,
            b: 1.816e-5,
            sample_hz: 170.0,
            e_star_pkts: 3.0,
        }
    }
}

impl AqmParams for IapiParams {
    const AQM: &'static str = "iapi";
    const TITLE: &'static str = "IAPI";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "q_ref_pkts",
            "packets",
            Range::Number(Bound::closed(0.001), Bound::closed(1e9)),
            "target queue length q_ref: e(k) = q(k) - q_ref",
        ),
        ParamDoc::new(
            "a",
            "1/packet",
            Range::Number(Bound::at(Limit::Mirror("b"), true), Bound::closed(1.0)),
            "PI coefficient of e(k): a = k_p + k_i0·T (ns-2 a_)",
        ),
        ParamDoc::new(
            "b",
            "1/packet",
            Range::Noted(
                &Range::Number(Bound::closed(0.0), Bound::at(Limit::Param("a"), true)),
                "a non-negative integral gain",
            ),
            "PI coefficient of e(k-1): b = k_p (ns-2 b_)",
        ),
        ParamDoc::new(
            "sample_hz",
            "Hz",
            Range::Number(Bound::closed(1e-9), Bound::closed(1e9)),
            "sampling frequency w of the PI update, T = 1/w (ns-2 w_)",
        ),
        ParamDoc::new(
            "e_star_pkts",
            "packets",
            Range::Number(Bound::closed(0.001), Bound::closed(1e9)),
            "error threshold e*: k_i = k_i0·(1 + (|e(k)| - e*)/(2e*))",
        ),
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Iapi::new(self)?))
    }
}

/// Controller state of IAPI.
#[derive(Clone, Debug)]
struct IapiState {
    /// p(k), the PI controller's probability.
    p: f64,
    /// k_i of the last update, per second.
    k_i: f64,
    /// e(k−1) = q(k−1) − q_ref, packets.
    e_prev: f64,
    /// When the next update is due, ns.
    next_update_ns: u64,
}

/// Counters kept by IAPI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IapiStats {
    /// PI updates run.
    pub updates: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts.
    pub early_signals: u64,
}

/// IAPI state machine.
#[derive(Clone, Debug)]
pub struct Iapi {
    params: IapiParams,
    period_ns: u64,
    /// T, seconds.
    period_s: f64,
    /// k_p = b, per packet.
    k_p: f64,
    /// k_i0 = (a − b)/T, per packet per second.
    k_i0: f64,
    state: IapiState,
    stats: IapiStats,
}

impl Iapi {
    /// An IAPI queue manager with validated parameters. As ns-2's PI, the first update runs
    /// at time 0 with q(k−1) = 0, then one every T = 1/w.
    pub fn new(params: IapiParams) -> Result<Self, ParamError> {
        params.validate()?;
        let period_s = 1.0 / params.sample_hz;
        Ok(Iapi {
            period_ns: ((period_s * 1e9).round() as u64).max(1),
            period_s,
            k_p: params.b,
            k_i0: (params.a - params.b) / period_s,
            state: IapiState {
                p: 0.0,
                k_i: 0.0,
                e_prev: -params.q_ref_pkts,
                next_update_ns: 0,
            },
            params,
            stats: IapiStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &IapiParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &IapiStats {
        &self.stats
    }

    /// The PI controller's probability p(k) (before the per-arrival scaling).
    pub fn p(&self) -> f64 {
        self.state.p
    }

    /// The adapted integral gain k_i of the last update, per packet per second.
    pub fn k_i(&self) -> f64 {
        self.state.k_i
    }

    /// The probability an arrival finding `q_pkts` queued is dropped with (§2.4 item 3):
    /// p′ = (q/q_ref)·p, clamped to [0, 1].
    pub fn arrival_probability(&self, q_pkts: u32) -> f64 {
        (f64::from(q_pkts) / self.params.q_ref_pkts * self.state.p).clamp(0.0, 1.0)
    }

    /// One update (Li et al. 2014 eqs. (6)–(8)): e(k) = q(k) − q_ref; eq. (8)
    /// k_i = k_i0·(1 + (|e(k)| − e*)/(2e*)); eq. (7) Δp = k_p·(e(k) − e(k−1)) + k_i·T·e(k);
    /// p(k) = p(k−1) + Δp clamped to [0, 1] (as ns-2's `calculate_p`). With k_i = k_i0 this is
    /// ns-2's p = a·e(k) − b·e(k−1) + p(k−1).
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
    fn update(&mut self, q_pkts: u32) {
        let e = f64::from(q_pkts) - self.params.q_ref_pkts;
        let e_star = self.params.e_star_pkts;
        let k_i = self.k_i0 * (1.0 + (e.abs() - e_star) / (2.0 * e_star));
        let dp = self.k_p * (e - self.state.e_prev) + k_i * self.period_s * e;
        let st = &mut self.state;
        st.p = (st.p + dp).clamp(0.0, 1.0);
        assert!(
            (0.0..=1.0).contains(&st.p),
            "drop probability {} is not in [0, 1]",
            st.p
        );
        st.k_i = k_i;
        st.e_prev = e;
        self.stats.updates += 1;
    }
}

impl Aqm for Iapi {
    fn name(&self) -> &'static str {
        "iapi"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Drop (or, with ECN, mark) with probability p′ = (q/q_ref)·p, q the queue the packet
    /// finds (§2.4 item 3). **Reconstruction**: p′ is used for this arrival's decision only;
    /// the PI state p(k) is not changed by it (scaling the state at every arrival would
    /// compound and is not a PI controller any more).
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        if rng.bernoulli(self.arrival_probability(queue.len_pkts)) {
            self.stats.early_signals += 1;
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.state.next_update_ns)
    }

    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        self.update(queue.len_pkts);
        self.state.next_update_ns = now_ns.saturating_add(self.period_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "k_i"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.state.p);
        out.push(self.state.k_i);
    }
}

#[cfg(test)]
mod tests;
