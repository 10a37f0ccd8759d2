//! FAPIDNN, the fuzzy-assisted PID neural network (Yan & Lei, iTAP 2011, as described by
//! Li et al. 2014 §2.7 and parameterised in §3.1). A PID neural network (PIDNN) with inputs
//! q_ref and q(k) computes the drop probability every sample; its output weights — the gains
//! K_P, K_I, K_D — are trained by back-propagation with momentum, and a fuzzy controller
//! ([`fuzzy`]) sets the learning rate η(k) from the error and its change.
//!
//! **Reconstruction** (no text of Yan & Lei beyond the abstract is public): the network is the
//! standard 2-3-1 PIDNN — input neurons q_ref and q; a proportional, an integral and a
//! derivative hidden neuron, each saturating at ±1; a linear output neuron. The input weights
//! are held at −1 (q_ref) and +1 (q), so each hidden neuron sees u = (q − q_ref)/B; q and q_ref
//! are divided by the buffer size B because the PIDNN's ±1 saturations presume signals
//! normalised to their range. The output weights start at the §3.1 gains. The plant's
//! Jacobian ∂q/∂p, which the back-propagated error needs, is replaced by its sign, −1.

use crate::contract::{
    check_rate_bps, Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{AqmParams, Bound, ParamDoc, Range, DURATION_MS, FRACTION};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

pub mod fuzzy;

/// FAPIDNN parameters (Li et al. 2014 §3.1, "the same as in [34]").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FapidnnParams {
    /// Target queue q_ref, packets.
    pub q_ref_pkts: f64,
    /// Sample period T of the controller, milliseconds.
    pub sample_interval_ms: f64,
    /// Initial proportional gain K_P (output weight of the P-neuron).
    pub k_p: f64,
    /// Initial integral gain K_I (output weight of the I-neuron).
    pub k_i: f64,
    /// Initial derivative gain K_D (output weight of the D-neuron).
    pub k_d: f64,
    /// Base learning rate η, scaled each sample by the fuzzy controller.
    pub eta: f64,
    /// Momentum factor α of the weight updates.
    pub momentum: f64,
    /// Packet size used to turn the link rate into packets per sample (fuzzy input EC), bytes.
    pub mean_pkt_bytes: f64,
}

impl Default for FapidnnParams {
    /// §3.1: K_P = 2.58392·10⁻⁸, K_I = 2.98929·10⁻⁸, K_D = 3.50735·10⁻¹⁰, η = 8.5·10⁻⁵,
    /// momentum 0.005, target 300 packets, 1000-byte packets. The sample period is not given;
    /// 1 ms is the δt of the other neuron-based schemes of the same study (**reconstruction**).
    fn default() -> Self {
        FapidnnParams {
            q_ref_pkts: 300.0,
            sample_interval_ms: 1.0,
            k_p: 2.58392e-8,
            k_i: 2.98929e-8,
            k_d: 3.50735e-10,
            eta: 8.5e-5,
            momentum: 0.005,
            mean_pkt_bytes: 1000.0,
        }
    }
}

impl AqmParams for FapidnnParams {
    const AQM: &'static str = "fapidnn";
    const TITLE: &'static str = "FAPIDNN";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "q_ref_pkts",
            "packets",
            Range::Number(Bound::open(0.0), Bound::closed(1e9)),
            "target queue q_ref, an input of the network",
        ),
        ParamDoc::new(
            "sample_interval_ms",
            "ms",
            DURATION_MS,
            "sample period T: p and the weights are updated once per period",
        ),
        ParamDoc::new(
            "k_p",
            "",
            Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
            "initial proportional gain K_P (P-neuron output weight)",
        ),
        ParamDoc::new(
            "k_i",
            "",
            Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
            "initial integral gain K_I (I-neuron output weight)",
        ),
        ParamDoc::new(
            "k_d",
            "",
            Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
            "initial derivative gain K_D (D-neuron output weight)",
        ),
        ParamDoc::new(
            "eta",
            "",
            FRACTION,
            "base learning rate, scaled by the fuzzy factor in [0.25, 2]",
        ),
        ParamDoc::new(
            "momentum",
            "",
            Range::Fraction(Bound::closed(0.0), Bound::open(1.0)),
            "momentum factor of the back-propagation weight updates",
        ),
        ParamDoc::new(
            "mean_pkt_bytes",
            "bytes",
            Range::Number(Bound::closed(1.0), Bound::closed(1e9)),
            "packet size: link rate in packets per sample for the fuzzy input",
        ),
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Fapidnn::new(self, link)?))
    }
}

/// The PIDNN's state between samples.
#[derive(Clone, Debug)]
struct Network {
    /// Output weights (K_P, K_I, K_D).
    w: [f64; 3],
    /// Last weight changes, for the momentum term.
    dw: [f64; 3],
    /// Hidden outputs (P, I, D) of the last sample, which produced the current p.
    x: [f64; 3],
    /// Hidden input u of the last sample (normalised error), for the D-neuron.
    u_prev: f64,
    /// Queue of the last sample, packets (fuzzy input EC); None before the first sample.
    q_prev: Option<f64>,
    /// Learning rate of the last sample.
    eta: f64,
    /// Drop probability.
    p: f64,
}

/// Counters kept by FAPIDNN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FapidnnStats {
    /// Samples run.
    pub updates: u64,
    /// Early drops decided.
    pub early_drops: u64,
}

/// FAPIDNN state machine.
#[derive(Clone, Debug)]
pub struct Fapidnn {
    params: FapidnnParams,
    interval_ns: u64,
    buffer_pkts: f64,
    /// Link capacity, packets per sample (C·T).
    c_pkts_per_sample: f64,
    net: Network,
    next_update_ns: u64,
    stats: FapidnnStats,
}

/// The ±1 saturation of the PIDNN's hidden neurons.
fn sat(v: f64) -> f64 {
    v.clamp(-1.0, 1.0)
}

impl Fapidnn {
    /// FAPIDNN with validated parameters for `link`; the first sample is at time 0.
    pub fn new(params: FapidnnParams, link: LinkContext) -> Result<Self, ParamError> {
        params.validate()?;
        check_rate_bps(link.rate_bps)?;
        if link.buffer_pkts == 0 {
            return Err(ParamError::new("limit_pkts", "must be at least 1"));
        }
        let interval_ns = ((params.sample_interval_ms * 1e6).round() as u64).max(1);
        let c_pkts_per_sample =
            link.rate_bps / (8.0 * params.mean_pkt_bytes) * interval_ns as f64 / 1e9;
        Ok(Fapidnn {
            interval_ns,
            buffer_pkts: f64::from(link.buffer_pkts),
            c_pkts_per_sample,
            net: Network {
                w: [params.k_p, params.k_i, params.k_d],
                dw: [0.0; 3],
                x: [0.0; 3],
                u_prev: 0.0,
                q_prev: None,
                eta: params.eta,
                p: 0.0,
            },
            params,
            next_update_ns: 0,
            stats: FapidnnStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &FapidnnParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &FapidnnStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.net.p
    }

    /// The adapted gains (K_P, K_I, K_D).
    pub fn gains(&self) -> [f64; 3] {
        self.net.w
    }

    /// The learning rate η(k) of the last sample.
    pub fn eta(&self) -> f64 {
        self.net.eta
    }

    /// One sample k with queue q(k) packets:
    /// 1. error u(k) = (q(k) − q_ref)/B (hidden input, input weights −1 and +1);
    /// 2. learning rate η(k) = η·F(E, EC), E = (q − q_ref)/q_ref, EC = (q(k) − q(k−1))/(C·T)
    ///    ([`fuzzy::eta_factor`]; EC = 0 at the first sample);
    /// 3. back-propagation with momentum on the output weights, for E_k = ½u(k)² and
    ///    sgn(∂q/∂p) = −1: Δw_j(k) = η(k)·u(k)·x_j(k−1) + α·Δw_j(k−1), w_j += Δw_j;
    /// 4. hidden outputs x_P = sat(u), x_I = sat(x_I(k−1) + u), x_D = sat(u − u(k−1));
    /// 5. p(k) = Σ_j w_j·x_j clamped to [0, 1].
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
    fn update(&mut self, q: f64) {
        let FapidnnParams {
            q_ref_pkts,
            eta,
            momentum,
            ..
        } = self.params;
        let n = &mut self.net;
        let u = (q - q_ref_pkts) / self.buffer_pkts;
        let e = (q - q_ref_pkts) / q_ref_pkts;
        let ec = n.q_prev.map_or(0.0, |qp| (q - qp) / self.c_pkts_per_sample);
        n.eta = eta * fuzzy::eta_factor(e, ec);
        for j in 0..3 {
            let d = n.eta * u * n.x[j] + momentum * n.dw[j];
            n.w[j] += d;
            n.dw[j] = d;
        }
        n.x = [sat(u), sat(n.x[1] + u), sat(u - n.u_prev)];
        n.u_prev = u;
        n.q_prev = Some(q);
        let out: f64 = n.w.iter().zip(n.x).map(|(w, x)| w * x).sum();
        n.p = out.clamp(0.0, 1.0);
        assert!(
            (0.0..=1.0).contains(&n.p),
            "drop probability {} is not in [0, 1]",
            n.p
        );
        self.stats.updates += 1;
    }
}

impl Aqm for Fapidnn {
    fn name(&self) -> &'static str {
        "fapidnn"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Drop the arrival with probability p (ECN is off in the study: an early drop).
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        _queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        if rng.bernoulli(self.net.p) {
            self.stats.early_drops += 1;
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.next_update_ns)
    }

    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        self.update(f64::from(queue.len_pkts));
        self.next_update_ns = now_ns.saturating_add(self.interval_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "k_p", "k_i", "k_d", "eta"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.net.p);
        out.extend_from_slice(&self.net.w);
        out.push(self.net.eta);
    }
}

#[cfg(test)]
mod tests;
