//! Step marking, the AQM of DCTCP (Alizadeh et al. 2010, §3.1 "Simple Marking at the Switch";
//! RFC 8257 §3.1): every arriving packet is given a congestion signal while the instantaneous
//! queue holds K packets or more, none below. It is RED with q_min = q_max = K, an EWMA weight
//! of 1 (the average is the queue itself) and marking instead of dropping above q_max, as the
//! DCTCP paper configures RED and ns-3.37's `dctcp-example` configures `RedQueueDisc` (there
//! with MinTh < MaxTh; with MinTh = MaxTh = K, QW = 1, Gentle off and UseHardDrop off it is
//! this rule). The signal is a CE mark on an ECN-capable packet and a drop otherwise, as the
//! port decides for every AQM (`queue.ecn`).
//!
//! The paper marks "if the queue occupancy is greater than K upon its arrival"; RED's forced
//! region starts at q_avg ≥ q_max, so with q_max = K a packet that finds K packets waiting is
//! marked. This follows RED's (and ns-3's) comparison.

use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, ParamDoc, Range};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Step-marking parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepMarkingParams {
    /// Marking threshold K, packets: an arrival that finds at least K packets waiting gets the
    /// congestion signal.
    pub k_pkts: u32,
}

impl Default for StepMarkingParams {
    /// K = 20 packets, the DCTCP paper's value for 1 Gb/s links (§3.5; 65 for 10 Gb/s), which
    /// ns-3's `dctcp-example` also uses as MinTh on its 1 Gb/s links.
    fn default() -> Self {
        StepMarkingParams { k_pkts: 20 }
    }
}

impl AqmParams for StepMarkingParams {
    const AQM: &'static str = "step";
    const TITLE: &'static str = "Step marking";
    const PARAMS: &'static [ParamDoc] = &[ParamDoc::new(
        "k_pkts",
        "packets",
        Range::Count(1),
        "marking threshold K: arrivals that find at least K packets queued are marked",
    )];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(StepMarking { params: self }))
    }
}

/// DCTCP's switch: a threshold on the instantaneous queue.
#[derive(Clone, Debug)]
pub struct StepMarking {
    params: StepMarkingParams,
}

impl Aqm for StepMarking {
    fn name(&self) -> &'static str {
        "step"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// DCTCP paper §3.1: signal when the queue found on arrival is at least K.
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        queue: &QueueView,
        _rng: &mut Rng,
    ) -> EnqueueVerdict {
        if queue.len_pkts >= self.params.k_pkts {
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }

    fn probe(&self, _out: &mut Vec<f64>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(k_pkts: u32, len_pkts: u32) -> EnqueueVerdict {
        let link = LinkContext {
            rate_bps: 1e9,
            buffer_pkts: 100,
        };
        let mut aqm = StepMarkingParams { k_pkts }.build(link).unwrap();
        let pkt = PacketView {
            size_bytes: 1500,
            ect: true,
        };
        let queue = QueueView::of_pkts(len_pkts, 100, 1e9);
        aqm.on_enqueue(0, pkt, &queue, &mut Rng::from_seed(1))
    }

    #[test]
    fn arrivals_are_signalled_from_k_packets_queued_on() {
        assert_eq!(verdict(20, 19), EnqueueVerdict::Accept);
        assert_eq!(verdict(20, 20), EnqueueVerdict::EarlyDrop);
        assert_eq!(verdict(20, 80), EnqueueVerdict::EarlyDrop);
        assert_eq!(verdict(1, 0), EnqueueVerdict::Accept);
        assert_eq!(verdict(1, 1), EnqueueVerdict::EarlyDrop);
    }
}
