//! NRL, neuron reinforcement learning AQM (Zhou, Di, Chen & Guo, IEEE ICCA 2009, as described
//! by Li et al. 2014 §2.8 eq. (13)–(14) and parameterised in §3.1). One neuron with two inputs,
//! the queue error and the rate mismatch, gives the drop probability every sample; its two
//! weights are adjusted online by a reinforcement signal.
//!
//! **Reconstruction** (the 2009 text is not public; the 2014 comparison gives eq. (13)–(14)
//! and the constants α = 0.001, γ = 0.98, θ1 = 10, θ2 = 0.02 but not the learning rule): the
//! reinforcement signal is the weighted congestion error r(t) = θ1·e1(t) + θ2·e2(t) of the
//! neuron's inputs, by default the relative errors e1 = (q − q_ref)/q_ref and e2 = (x − C)/C
//! (AN-AQM's normalisation of the rate mismatch, Li et al. §2.6; with eq. (13)'s packets and
//! packets per second the §3.1 α saturates the neuron within 0.1 s, docs/aqm/nrl.md); γ is the decay of TD(λ)-style eligibility traces of the
//! neuron's inputs (the 2009 paper cites Sutton & Barto and Dayan's TD(λ)); α is the learning
//! rate. Each weight moves by α·r(t) times its trace, the gradient of ½r² with the plant's
//! Jacobian ∂q/∂p replaced by its sign. Initial weights, sample period and the measurement
//! of x are reconstructions too (see [`NrlParams`]).

use crate::contract::{
    check_rate_bps, Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{AqmParams, Bound, ParamDoc, Range, DURATION_MS, FRACTION};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Bound on the magnitude of each input and weight, so that z stays finite whatever the
/// parameters (a tiny q_ref or link rate makes the relative errors huge); never reached with
/// the §3.1 values, where |e| < 10 and |ω| < 100.
const GUARD: f64 = 1e9;

/// NRL parameters (Li et al. 2014 §3.1, "the same parameters as in [33]").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NrlParams {
    /// Target queue q_ref, packets.
    pub q_ref_pkts: f64,
    /// Sample period T: p, the rate x and the weights are updated once per period, ms.
    pub sample_interval_ms: f64,
    /// Learning rate α.
    pub alpha: f64,
    /// Decay γ of the eligibility traces.
    pub gamma: f64,
    /// Weight θ1 of the queue error e1 in the reinforcement signal.
    pub theta1: f64,
    /// Weight θ2 of the rate mismatch e2 (packets/s) in the reinforcement signal, seconds.
    pub theta2: f64,
    /// Initial weight ω1 of the queue error, per packet.
    pub w1_initial: f64,
    /// Initial weight ω2 of the rate mismatch, per packet/s.
    pub w2_initial: f64,
    /// Packet size that turns bits per second into packets per second, bytes.
    pub mean_pkt_bytes: f64,
    /// Feed the neuron the relative errors (q − q_ref)/q_ref and (x − C)/C (true) or the
    /// errors in packets and packets per second as eq. (13) writes them (false).
    pub normalised_inputs: bool,
}

impl Default for NrlParams {
    /// §3.1: α = 0.001, γ = 0.98, θ1 = 10, θ2 = 0.02, target 300 packets, 1000-byte packets.
    /// **Reconstructions:** a 1 ms sample period (the δt of the other neuron-based schemes of
    /// the same study) and initial weights 0 (p = 0 until the neuron has learnt).
    fn default() -> Self {
        NrlParams {
            q_ref_pkts: 300.0,
            sample_interval_ms: 1.0,
            alpha: 0.001,
            gamma: 0.98,
            theta1: 10.0,
            theta2: 0.02,
            w1_initial: 0.0,
            w2_initial: 0.0,
            mean_pkt_bytes: 1000.0,
            normalised_inputs: true,
        }
    }
}

impl AqmParams for NrlParams {
    const AQM: &'static str = "nrl";
    const TITLE: &'static str = "NRL";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "q_ref_pkts",
            "packets",
            Range::Number(Bound::open(0.0), Bound::closed(1e9)),
            "target queue q_ref",
        ),
        ParamDoc::new(
            "sample_interval_ms",
            "ms",
            DURATION_MS,
            "sample period T: p, the measured input rate x and the weights, once per period",
        ),
        ParamDoc::new("alpha", "", FRACTION, "learning rate of the neuron weights"),
        ParamDoc::new(
            "gamma",
            "",
            Range::Fraction(Bound::closed(0.0), Bound::open(1.0)),
            "decay of the eligibility traces of the neuron inputs, per sample",
        ),
        ParamDoc::new(
            "theta1",
            "",
            Range::Number(Bound::closed(0.0), Bound::closed(1e6)),
            "weight of the queue error in the reinforcement signal",
        ),
        ParamDoc::new(
            "theta2",
            "s",
            Range::Number(Bound::closed(0.0), Bound::closed(1e6)),
            "weight of the rate mismatch (packets/s) in the reinforcement signal",
        ),
        ParamDoc::new(
            "w1_initial",
            "1/packet",
            Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
            "initial weight of the queue error q - q_ref",
        ),
        ParamDoc::new(
            "w2_initial",
            "s/packet",
            Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
            "initial weight of the rate mismatch x - C",
        ),
        ParamDoc::new(
            "mean_pkt_bytes",
            "bytes",
            Range::Number(Bound::closed(1.0), Bound::closed(1e9)),
            "packet size: rates in packets per second",
        ),
        ParamDoc::new(
            "normalised_inputs",
            "",
            Range::Flag,
            "inputs (q - q_ref)/q_ref and (x - C)/C; false: packets and packets/s as eq. (13)",
        ),
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Nrl::new(self, link)?))
    }
}

/// The neuron's state between samples.
#[derive(Clone, Debug)]
struct Neuron {
    /// Weights (ω1, ω2).
    w: [f64; 2],
    /// Eligibility traces of the two inputs.
    trace: [f64; 2],
    /// Inputs (e1, e2) of the last sample.
    e: [f64; 2],
    /// Slope f′(z) of the activation at the last sample.
    slope: f64,
    /// Reinforcement signal of the last sample, packets.
    r: f64,
    /// Bytes that arrived since the last sample.
    arrived_bytes: u64,
    /// Drop probability.
    p: f64,
}

/// Counters kept by NRL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NrlStats {
    /// Samples run.
    pub updates: u64,
    /// Early drops decided.
    pub early_drops: u64,
}

/// NRL state machine.
#[derive(Clone, Debug)]
pub struct Nrl {
    params: NrlParams,
    interval_ns: u64,
    /// Link capacity C, bits per second.
    rate_bps: f64,
    neuron: Neuron,
    next_update_ns: u64,
    stats: NrlStats,
}

/// Eq. (14): f(z) = (1 − e^(−z))/(1 + e^(−z)) = tanh(z/2), in (−1, 1), with its slope
/// f′(z) = (1 − f(z)²)/2.
pub fn activation(z: f64) -> (f64, f64) {
    let y = (0.5 * z).tanh();
    (y, 0.5 * (1.0 - y * y))
}

impl Nrl {
    /// NRL with validated parameters for `link`; the first sample is at time 0.
    pub fn new(params: NrlParams, link: LinkContext) -> Result<Self, ParamError> {
        params.validate()?;
        check_rate_bps(link.rate_bps)?;
        Ok(Nrl {
            interval_ns: ((params.sample_interval_ms * 1e6).round() as u64).max(1),
            rate_bps: link.rate_bps,
            neuron: Neuron {
                w: [params.w1_initial, params.w2_initial],
                trace: [0.0; 2],
                e: [0.0; 2],
                slope: 0.0,
                r: 0.0,
                arrived_bytes: 0,
                p: 0.0,
            },
            params,
            next_update_ns: 0,
            stats: NrlStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &NrlParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &NrlStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.neuron.p
    }

    /// The weights (ω1, ω2).
    pub fn weights(&self) -> [f64; 2] {
        self.neuron.w
    }

    /// The reinforcement signal r of the last sample, packets.
    pub fn reinforcement(&self) -> f64 {
        self.neuron.r
    }

    /// One sample with queue q packets and `arrived_bytes` since the last sample:
    /// 1. inputs e1 = q − q_ref (packets), e2 = x − C (packets/s) with x the bytes that
    ///    arrived over the last period T (all arrivals, dropped ones included);
    /// 2. reinforcement r = θ1·e1 + θ2·e2;
    /// 3. traces ē_i ← γ·ē_i + f′(z_prev)·e_i,prev (the inputs that set the current p);
    /// 4. weights ω_i ← ω_i + α·r·ē_i;
    /// 5. eq. (13) z = ω1·e1 + ω2·e2, eq. (14) y = f(z), p = y truncated to [0, 1].
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
    fn update(&mut self, q: f64) {
        let NrlParams {
            q_ref_pkts,
            alpha,
            gamma,
            theta1,
            theta2,
            mean_pkt_bytes,
            ..
        } = self.params;
        let t_s = self.interval_ns as f64 / 1e9;
        let n = &mut self.neuron;
        let x_bps = n.arrived_bytes as f64 * 8.0 / t_s;
        n.arrived_bytes = 0;
        let e = if self.params.normalised_inputs {
            [
                (q - q_ref_pkts) / q_ref_pkts,
                (x_bps - self.rate_bps) / self.rate_bps,
            ]
        } else {
            [
                q - q_ref_pkts,
                (x_bps - self.rate_bps) / (8.0 * mean_pkt_bytes),
            ]
        };
        let e = e.map(|v| v.clamp(-GUARD, GUARD));
        n.r = theta1 * e[0] + theta2 * e[1];
        for i in 0..2 {
            n.trace[i] = gamma * n.trace[i] + n.slope * n.e[i];
            n.w[i] = (n.w[i] + alpha * n.r * n.trace[i]).clamp(-GUARD, GUARD);
        }
        let z = n.w[0] * e[0] + n.w[1] * e[1];
        let (y, slope) = activation(z);
        n.e = e;
        n.slope = slope;
        n.p = if y.is_nan() { y } else { y.clamp(0.0, 1.0) };
        assert!(
            (0.0..=1.0).contains(&n.p),
            "drop probability {} is not in [0, 1]",
            n.p
        );
        self.stats.updates += 1;
    }
}

impl Aqm for Nrl {
    fn name(&self) -> &'static str {
        "nrl"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Count the arrival towards the input rate x, then drop it with probability p (ECN is
    /// off in the study: an early drop).
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        pkt: PacketView,
        _queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        self.neuron.arrived_bytes += u64::from(pkt.size_bytes);
        if rng.bernoulli(self.neuron.p) {
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
        &["p", "w1", "w2", "r"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.neuron.p);
        out.extend_from_slice(&self.neuron.w);
        out.push(self.neuron.r);
    }
}

#[cfg(test)]
mod tests;
