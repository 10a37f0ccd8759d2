//! Neuron PID (Sun, Chan, Ko, Chen & Zukerman, "Neuron PID: a robust AQM scheme", ATNAC 2006),
//! as Li et al. (2014) §2.5 writes it: every δt the queue-length error e(k) = q(k) − q_ref is
//! turned into its three PID components, and an adaptive neuron
//! ([`super::neuron_learning`]) adds K·Σ wᵢxᵢ / Σ |wᵢ| to the drop probability and learns its
//! weights by associative learning; each arrival is dropped (or marked) with probability p.

use super::neuron_learning::{Neuron, PidComponents};
use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, Bound, ParamDoc, Range, DURATION_MS, NON_NEGATIVE};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Neuron PID parameters (Li et al. 2014 §3.1 names in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NeuronPidParams {
    /// Target queue length q_ref, packets.
    pub q_ref_pkts: f64,
    /// Sample time δt, milliseconds.
    pub sample_interval_ms: f64,
    /// Neuron gain K.
    pub gain_k: f64,
    /// Learning rate d₁ of the proportional input.
    pub d1: f64,
    /// Learning rate d₂ of the integral input.
    pub d2: f64,
    /// Learning rate d₃ of the derivative input.
    pub d3: f64,
    /// Initial value of every weight wᵢ(0).
    pub w_initial: f64,
}

impl Default for NeuronPidParams {
    /// Li et al. (2014) §3.1: q_ref 300 packets, δt = 1 ms, K = 0.01, d₁ = 2·10⁻⁶,
    /// d₂ = d₃ = 10⁻⁷. **Reconstruction**: wᵢ(0) = 1 (not given in the sources available).
    fn default() -> Self {
        NeuronPidParams {
            q_ref_pkts: 300.0,
            sample_interval_ms: 1.0,
            gain_k: 0.01,
            d1: 2e-6,
            d2: 1e-7,
            d3: 1e-7,
            w_initial: 1.0,
        }
    }
}

/// The table entries of q_ref, δt, K and wᵢ(0), shared with AN-AQM.
pub(crate) const Q_REF_DOC: ParamDoc = ParamDoc::new(
    "q_ref_pkts",
    "packets",
    Range::Number(Bound::closed(0.0), Bound::closed(1e9)),
    "target queue length q_ref: e(k) = q(k) - q_ref",
);
pub(crate) const SAMPLE_DOC: ParamDoc = ParamDoc::new(
    "sample_interval_ms",
    "ms",
    DURATION_MS,
    "sample time dt: one neuron step every dt",
);
pub(crate) const GAIN_DOC: ParamDoc = ParamDoc::new(
    "gain_k",
    "",
    NON_NEGATIVE,
    "neuron gain K: p(k) = p(k-1) + K·sum(w_i·x_i)/sum(|w_i|)",
);
pub(crate) const W_INITIAL_DOC: ParamDoc = ParamDoc::new(
    "w_initial",
    "",
    Range::Finite,
    "initial value of every weight w_i(0)",
);

/// A learning rate's table entry.
pub(crate) const fn d_doc(name: &'static str, help: &'static str) -> ParamDoc {
    ParamDoc::new(name, "", NON_NEGATIVE, help)
}

/// Milliseconds to integer nanoseconds, rounded, at least 1.
pub(crate) fn interval_ns(ms: f64) -> u64 {
    ((ms * 1e6).round() as u64).max(1)
}

impl AqmParams for NeuronPidParams {
    const AQM: &'static str = "neuron_pid";
    const TITLE: &'static str = "Neuron PID";
    const PARAMS: &'static [ParamDoc] = &[
        Q_REF_DOC,
        SAMPLE_DOC,
        GAIN_DOC,
        d_doc("d1", "learning rate d1 of x1 = e(k) - e(k-1)"),
        d_doc("d2", "learning rate d2 of x2 = e(k)"),
        d_doc("d3", "learning rate d3 of x3 = e(k) - 2e(k-1) + e(k-2)"),
        W_INITIAL_DOC,
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(NeuronPid::new(self)?))
    }
}

/// Controller state of Neuron PID.
#[derive(Clone, Debug)]
struct NeuronPidState {
    /// e(k−1), e(k−2).
    error: PidComponents,
    /// Weights w₁, w₂, w₃ and the drop probability p.
    neuron: Neuron<3>,
    /// When the next sample is due, ns.
    next_sample_ns: u64,
}

/// Counters kept by Neuron PID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NeuronPidStats {
    /// Neuron steps run.
    pub samples: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts.
    pub early_signals: u64,
}

/// Neuron PID state machine.
#[derive(Clone, Debug)]
pub struct NeuronPid {
    params: NeuronPidParams,
    interval_ns: u64,
    state: NeuronPidState,
    stats: NeuronPidStats,
}

impl NeuronPid {
    /// A Neuron PID queue manager with validated parameters. The first sample is taken one δt
    /// after the start, then every δt.
    pub fn new(params: NeuronPidParams) -> Result<Self, ParamError> {
        params.validate()?;
        let interval_ns = interval_ns(params.sample_interval_ms);
        Ok(NeuronPid {
            interval_ns,
            state: NeuronPidState {
                error: PidComponents::default(),
                neuron: Neuron::new(params.w_initial),
                next_sample_ns: interval_ns,
            },
            params,
            stats: NeuronPidStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &NeuronPidParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &NeuronPidStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.state.neuron.p
    }

    /// The weights w₁, w₂, w₃.
    pub fn weights(&self) -> [f64; 3] {
        self.state.neuron.w
    }
}

impl Aqm for NeuronPid {
    fn name(&self) -> &'static str {
        "neuron_pid"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Drop (or, with ECN, mark) with probability p; the buffer limit is the host's.
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        _queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        if rng.bernoulli(self.state.neuron.p) {
            self.stats.early_signals += 1;
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.state.next_sample_ns)
    }

    /// One sample (Li et al. 2014 eqs. (9)–(12)): e(k) = q(k) − q_ref with q(k) the
    /// instantaneous queue in packets, x = PID components of e, then the neuron step with
    /// teacher signal e(k). **Reconstruction**: e is in packets, not normalised (the paper
    /// defines e(k) = q(k) − q_ref, §2.4, and uses it for Neuron PID, §2.5; see
    /// docs/aqm/neuron_pid.md for why the learning rates point to packets).
    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        let p = &self.params;
        let e = f64::from(queue.len_pkts) - p.q_ref_pkts;
        let x = self.state.error.next(e);
        self.state.neuron.step(p.gain_k, &x, &[p.d1, p.d2, p.d3], e);
        self.stats.samples += 1;
        self.state.next_sample_ns = now_ns.saturating_add(self.interval_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "w1", "w2", "w3"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.state.neuron.p);
        out.extend_from_slice(&self.state.neuron.w);
    }
}

#[cfg(test)]
mod tests;
