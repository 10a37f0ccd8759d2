//! REM, Random Exponential Marking (Athuraliya, Low, Li & Yin, "REM: active queue management",
//! IEEE Network 15(3), 2001; Li et al. 2014 §2.2 eq. (4)), as ns-2.35's `Queue/REM`
//! (`queue/rem.cc`, by the REM authors) runs it. A timer updates a link "price" every
//! `update_interval_ms` from the queue error and the mismatch between the input rate and the
//! link's capacity; each arrival is dropped (or marked) with probability 1 − φ^(−price).

use crate::contract::{
    check_rate_bps, Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{
    AqmParams, Bound, ParamDoc, Range, DURATION_MS, NON_NEGATIVE, POSITIVE, POSITIVE_FRACTION,
};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// REM parameters (the REM paper's symbols; ns-2.35 `Queue/REM` variables in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RemParams {
    /// φ, base of the marking probability 1 − φ^(−price) (`phi_`).
    pub phi: f64,
    /// α, weight of the queue error against the rate mismatch (a constant 0.1 in ns-2).
    pub alpha: f64,
    /// γ, step size of the price update (`gamma_`).
    pub gamma: f64,
    /// Period of the price update, milliseconds (`pupdtime_`).
    pub update_interval_ms: f64,
    /// b*, the target backlog q_ref, packets (`pbo_`).
    pub q_ref_pkts: f64,
    /// Weight of the latest interval's arrival count in the filtered input rate (`inw_`;
    /// 1 uses the latest count alone).
    pub input_weight: f64,
    /// Packet size that turns the link rate into packets per interval, bytes (`mean_pktsize_`).
    pub mean_pkt_bytes: f64,
}

impl Default for RemParams {
    /// Li et al. 2014 §3.1, "the default parameters of [REM]": φ 1.001, α 0.1, γ 0.001, a 2 ms
    /// update, with the paper's 300-packet target (ns-2's `pbo_` default is 20); ns-2.35's
    /// `inw_` 1 and `mean_pktsize_` 1000 bytes.
    fn default() -> Self {
        RemParams {
            phi: 1.001,
            alpha: 0.1,
            gamma: 0.001,
            update_interval_ms: 2.0,
            q_ref_pkts: 300.0,
            input_weight: 1.0,
            mean_pkt_bytes: 1000.0,
        }
    }
}

impl AqmParams for RemParams {
    const AQM: &'static str = "rem";
    const TITLE: &'static str = "REM";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "phi",
            "",
            Range::Above(Bound::open(1.0)),
            "phi: drop probability 1 - phi^(-price)",
        ),
        ParamDoc::new(
            "alpha",
            "",
            NON_NEGATIVE,
            "alpha: weight of the queue error q - q_ref in the price update",
        ),
        ParamDoc::new(
            "gamma",
            "",
            POSITIVE,
            "gamma: step size of the price update",
        ),
        ParamDoc::new(
            "update_interval_ms",
            "ms",
            DURATION_MS,
            "period of the price update; rates are counted in packets per interval",
        ),
        ParamDoc::new(
            "q_ref_pkts",
            "packets",
            NON_NEGATIVE,
            "target backlog q_ref (b*)",
        ),
        ParamDoc::new(
            "input_weight",
            "",
            POSITIVE_FRACTION,
            "weight of the latest arrival count in the filtered input rate (1: no filter)",
        ),
        ParamDoc::new(
            "mean_pkt_bytes",
            "bytes",
            Range::Above(Bound::closed(1.0)),
            "packet size that converts the link rate to packets per interval",
        ),
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Rem::new(self, link.rate_bps)?))
    }
}

/// REM's state.
#[derive(Clone, Debug)]
struct RemVars {
    /// The link price.
    price: f64,
    /// The drop probability 1 − φ^(−price).
    p: f64,
    /// Arrivals counted since the last update, packets.
    arrivals: u64,
    /// The filtered input, packets per interval.
    input_avg_pkts: f64,
    /// When the next update is due, ns.
    next_update_ns: u64,
}

/// Counters kept by REM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemStats {
    /// Price updates run.
    pub updates: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts.
    pub early_drops: u64,
    /// [`EnqueueVerdict::ForcedDrop`] verdicts (arrivals that would fill the buffer).
    pub forced_drops: u64,
}

/// REM state machine.
#[derive(Clone, Debug)]
pub struct Rem {
    params: RemParams,
    interval_ns: u64,
    /// c: packets the link sends in one interval.
    capacity_pkts: f64,
    vars: RemVars,
    stats: RemStats,
}

impl Rem {
    /// REM on a link of `rate_bps`. The first price update is due one interval after time 0
    /// (ns-2 arms its timer when the queue is reset at the start of the run).
    pub fn new(params: RemParams, rate_bps: f64) -> Result<Self, ParamError> {
        params.validate()?;
        check_rate_bps(rate_bps)?;
        let interval_ns = ((params.update_interval_ms * 1e6).round() as u64).max(1);
        let capacity_pkts =
            params.update_interval_ms * 1e-3 * rate_bps / (8.0 * params.mean_pkt_bytes);
        if !capacity_pkts.is_finite() {
            return Err(ParamError::new(
                "rate_bps",
                "must give a finite number of packets per update interval",
            ));
        }
        Ok(Rem {
            params,
            interval_ns,
            capacity_pkts,
            vars: RemVars {
                price: 0.0,
                p: 0.0,
                arrivals: 0,
                input_avg_pkts: 0.0,
                next_update_ns: interval_ns,
            },
            stats: RemStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &RemParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &RemStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.vars.p
    }

    /// The link price.
    pub fn price(&self) -> f64 {
        self.vars.price
    }

    /// c, the packets the link can send in one update interval.
    pub fn capacity_pkts_per_interval(&self) -> f64 {
        self.capacity_pkts
    }

    /// One price update, Li et al. 2014 eq. (4) (REM paper eq. (1)):
    /// price ← max(0, price + γ·(α·(q − q_ref) + x − c)), with q the packets waiting now,
    /// x the input rate and c the link capacity, both in packets per update interval as ns-2
    /// counts them: x is the arrivals of the interval filtered as
    /// x ← (1 − w)·x + w·arrivals (w = `input_weight`), c = interval · rate / (8 · mean packet).
    /// Then p = 1 − φ^(−price) (REM paper eq. (3)).
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
    fn update(&mut self, queue: &QueueView) {
        let RemParams {
            phi,
            alpha,
            gamma,
            q_ref_pkts,
            input_weight,
            ..
        } = self.params;
        let v = &mut self.vars;
        v.input_avg_pkts =
            (1.0 - input_weight) * v.input_avg_pkts + input_weight * v.arrivals as f64;
        v.arrivals = 0;
        let q = f64::from(queue.len_pkts);
        let mismatch = alpha * (q - q_ref_pkts) + v.input_avg_pkts - self.capacity_pkts;
        // Floored at 0 as in the paper and ns-2; kept finite (p is 1 long before) so that
        // the price can come down again.
        v.price = (v.price + gamma * mismatch).clamp(0.0, f64::MAX);
        v.p = 1.0 - phi.powf(-v.price);
        assert!(
            (0.0..=1.0).contains(&v.p),
            "drop probability {} is not in [0, 1] (price {})",
            v.p,
            v.price
        );
        self.stats.updates += 1;
    }
}

impl Aqm for Rem {
    fn name(&self) -> &'static str {
        "rem"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// Every arrival counts towards the input rate, the dropped ones included. As in ns-2's
    /// `Queue/REM`, an arrival that would bring the queue to its limit is dropped
    /// ([`EnqueueVerdict::ForcedDrop`]; ns-2 enqueues it, finds length ≥ limit and drops it),
    /// and any other is dropped with probability p ([`EnqueueVerdict::EarlyDrop`], which the
    /// host turns into a mark for an ECN-capable packet on an ECN queue), whatever the queue
    /// length.
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        self.vars.arrivals += 1;
        if u64::from(queue.len_pkts) + 1 >= u64::from(queue.limit_pkts) {
            self.stats.forced_drops += 1;
            return EnqueueVerdict::ForcedDrop;
        }
        if rng.bernoulli(self.vars.p) {
            self.stats.early_drops += 1;
            return EnqueueVerdict::EarlyDrop;
        }
        EnqueueVerdict::Accept
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.vars.next_update_ns)
    }

    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        self.update(queue);
        self.vars.next_update_ns = now_ns.saturating_add(self.interval_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "price", "input_rate_pkts_per_s"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.vars.p);
        out.push(self.vars.price);
        out.push(self.vars.input_avg_pkts * 1e9 / self.interval_ns as f64);
    }
}

#[cfg(test)]
mod tests;
