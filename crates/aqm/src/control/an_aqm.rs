//! AN-AQM, the adaptive neuron AQM (Sun & Zukerman, "An adaptive neuron AQM for a stable
//! Internet", IFIP Networking 2007), as Li et al. (2014) §2.6 writes it: Neuron PID
//! ([`super::neuron_pid`]) with six neuron inputs, the PID components of the queue-length
//! error e(k) = q(k) − q_ref and those of the normalised rate mismatch γ(k) = r(k)/C − 1, r the
//! input rate of the buffer and C the link capacity. The neuron and its learning are
//! [`super::neuron_learning`]'s, shared with Neuron PID.

use super::neuron_learning::{Neuron, PidComponents};
use super::neuron_pid::{d_doc, interval_ns, GAIN_DOC, Q_REF_DOC, SAMPLE_DOC, W_INITIAL_DOC};
use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, ParamDoc};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Largest γ used, a numeric guard that keeps the inputs finite: an arrival rate 10¹² times
/// the link's, reached only far outside any realistic setting (a link of a few bit/s).
const GAMMA_MAX: f64 = 1e12;

/// AN-AQM parameters (Li et al. 2014 §3.1 names in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnAqmParams {
    /// Target queue length q_ref, packets.
    pub q_ref_pkts: f64,
    /// Sample time δt, milliseconds; also the interval over which r(k) is measured.
    pub sample_interval_ms: f64,
    /// Neuron gain K.
    pub gain_k: f64,
    /// Learning rate d₁ of x₁ = e(k) − e(k−1).
    pub d1: f64,
    /// Learning rate d₂ of x₂ = e(k).
    pub d2: f64,
    /// Learning rate d₃ of x₃ = e(k) − 2e(k−1) + e(k−2).
    pub d3: f64,
    /// Learning rate d₄ of x₄ = γ(k) − γ(k−1).
    pub d4: f64,
    /// Learning rate d₅ of x₅ = γ(k).
    pub d5: f64,
    /// Learning rate d₆ of x₆ = γ(k) − 2γ(k−1) + γ(k−2).
    pub d6: f64,
    /// Initial value of every weight wᵢ(0).
    pub w_initial: f64,
}

impl Default for AnAqmParams {
    /// Li et al. (2014) §3.1: q_ref 300 packets, δt = 1 ms and K = 0.01 as Neuron PID,
    /// d₁ = d₂ = d₃ = 10⁻⁵, d₄ = d₅ = d₆ = 10⁻⁴. **Reconstruction**: wᵢ(0) = 1, as Neuron PID.
    fn default() -> Self {
        AnAqmParams {
            q_ref_pkts: 300.0,
            sample_interval_ms: 1.0,
            gain_k: 0.01,
            d1: 1e-5,
            d2: 1e-5,
            d3: 1e-5,
            d4: 1e-4,
            d5: 1e-4,
            d6: 1e-4,
            w_initial: 1.0,
        }
    }
}

impl AnAqmParams {
    fn rates(&self) -> [f64; 6] {
        [self.d1, self.d2, self.d3, self.d4, self.d5, self.d6]
    }
}

impl AqmParams for AnAqmParams {
    const AQM: &'static str = "an_aqm";
    const TITLE: &'static str = "AN-AQM";
    const PARAMS: &'static [ParamDoc] = &[
        Q_REF_DOC,
        ParamDoc::new(
            "sample_interval_ms",
            SAMPLE_DOC.unit,
            SAMPLE_DOC.range,
            "sample time dt: one neuron step every dt, input rate r measured over it",
        ),
        GAIN_DOC,
        d_doc("d1", "learning rate d1 of x1 = e(k) - e(k-1)"),
        d_doc("d2", "learning rate d2 of x2 = e(k)"),
        d_doc("d3", "learning rate d3 of x3 = e(k) - 2e(k-1) + e(k-2)"),
        d_doc("d4", "learning rate d4 of x4 = g(k) - g(k-1), g = r/C - 1"),
        d_doc("d5", "learning rate d5 of x5 = g(k)"),
        d_doc("d6", "learning rate d6 of x6 = g(k) - 2g(k-1) + g(k-2)"),
        W_INITIAL_DOC,
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(AnAqm::new(self)?))
    }
}

/// Controller state of AN-AQM.
#[derive(Clone, Debug)]
struct AnAqmState {
    /// e(k−1), e(k−2).
    queue_error: PidComponents,
    /// γ(k−1), γ(k−2).
    rate_mismatch: PidComponents,
    /// Weights w₁ … w₆ and the drop probability p.
    neuron: Neuron<6>,
    /// Bytes that arrived at the buffer since the last sample.
    arrived_bytes: u64,
    /// γ(k) of the last sample.
    gamma: f64,
    /// When the last sample was taken (0 before the first), ns.
    last_sample_ns: u64,
    /// When the next sample is due, ns.
    next_sample_ns: u64,
}

/// Counters kept by AN-AQM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnAqmStats {
    /// Neuron steps run.
    pub samples: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts.
    pub early_signals: u64,
}

/// AN-AQM state machine.
#[derive(Clone, Debug)]
pub struct AnAqm {
    params: AnAqmParams,
    interval_ns: u64,
    state: AnAqmState,
    stats: AnAqmStats,
}

impl AnAqm {
    /// An AN-AQM queue manager with validated parameters. The first sample is taken one δt
    /// after the start (so r(1) is measured over a whole interval), then every δt.
    pub fn new(params: AnAqmParams) -> Result<Self, ParamError> {
        params.validate()?;
        let interval_ns = interval_ns(params.sample_interval_ms);
        Ok(AnAqm {
            interval_ns,
            state: AnAqmState {
                queue_error: PidComponents::default(),
                rate_mismatch: PidComponents::default(),
                neuron: Neuron::new(params.w_initial),
                arrived_bytes: 0,
                gamma: 0.0,
                last_sample_ns: 0,
                next_sample_ns: interval_ns,
            },
            params,
            stats: AnAqmStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &AnAqmParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &AnAqmStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.state.neuron.p
    }

    /// The weights w₁ … w₆.
    pub fn weights(&self) -> [f64; 6] {
        self.state.neuron.w
    }

    /// γ(k) of the last sample.
    pub fn gamma(&self) -> f64 {
        self.state.gamma
    }
}

impl Aqm for AnAqm {
    fn name(&self) -> &'static str {
        "an_aqm"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Counts the arrival towards r(k), then drops (or, with ECN, marks) it with probability p.
    /// **Reconstruction**: r is the rate offered to the buffer, every arrival counted whatever
    /// becomes of it (dropped by the AQM or by overflow), as REM measures its input rate
    /// (Athuraliya et al. 2001; ns-2 `rem.cc` counts at `enque` before any decision).
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        pkt: PacketView,
        _queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        self.state.arrived_bytes += u64::from(pkt.size_bytes);
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

    /// One sample: e(k) = q(k) − q_ref (packets, instantaneous queue) and
    /// γ(k) = r(k)/C − 1 (Li et al. 2014 §2.6), r(k) = 8·(bytes arrived in the last δt)/δt in
    /// bit/s (δt the time since the last sample) and C the link rate in bit/s; x₁…x₃ the PID components of e, x₄…x₆ those of γ; the
    /// neuron step (eqs. (11)–(12)) over the six inputs.
    /// γ is held at most 10¹² (a numeric guard).
    /// **Reconstruction**: r(k) is the plain count over the sample interval, not filtered
    /// (REM's default input weight 1 does the same), and the teacher signal of every weight,
    /// including w₄…w₆, is the queue error e(k) as in eq. (11).
    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        let p = &self.params;
        let e = f64::from(queue.len_pkts) - p.q_ref_pkts;
        let elapsed_s = now_ns.saturating_sub(self.state.last_sample_ns).max(1) as f64 / 1e9;
        let rate_bps = self.state.arrived_bytes as f64 * 8.0 / elapsed_s;
        let gamma = if queue.rate_bps > 0.0 {
            (rate_bps / queue.rate_bps - 1.0).min(GAMMA_MAX)
        } else {
            0.0
        };
        self.state.arrived_bytes = 0;
        self.state.last_sample_ns = now_ns;
        self.state.gamma = gamma;
        let [x1, x2, x3] = self.state.queue_error.next(e);
        let [x4, x5, x6] = self.state.rate_mismatch.next(gamma);
        self.state
            .neuron
            .step(p.gain_k, &[x1, x2, x3, x4, x5, x6], &p.rates(), e);
        self.stats.samples += 1;
        self.state.next_sample_ns = now_ns.saturating_add(self.interval_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "w1", "w2", "w3", "w4", "w5", "w6", "gamma"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.state.neuron.p);
        out.extend_from_slice(&self.state.neuron.w);
        out.push(self.state.gamma);
    }
}

#[cfg(test)]
mod tests;
