//! FQ-CoDel, flow queueing with CoDel (Høiland-Jørgensen, McKenney, Täht, Gettys & Dumazet,
//! RFC 8290, 2018; ns-3.37 `FqCoDelQueueDisc`; Linux `sch_fq_codel`): packets are hashed into
//! flow queues served by deficit round robin with priority for new (sparse) flows, and each
//! flow queue is managed by its own CoDel (RFC 8289). The scheduler runs in the host
//! ([`crate::params::FlowQueueing`]); this file states the parameters and builds one flow queue's
//! CoDel.

use crate::contract::{Aqm, LinkContext, ParamError};
use crate::delay::codel::{CoDel, CoDelParams};
use crate::params::{
    AqmParams, FlowQueueing, ParamDoc, Range, Scheduler, CE_THRESHOLD_DOC, DURATION_MS,
};
use serde::{Deserialize, Serialize};

/// FQ-CoDel parameters: CoDel's (RFC 8289 §4; ns-3 `Target`, `Interval`, `MinBytes` of the
/// child `CoDelQueueDisc`) and the flow-queueing settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FqCoDelParams {
    /// TARGET of each flow queue's CoDel, milliseconds.
    pub target_ms: f64,
    /// INTERVAL of each flow queue's CoDel, milliseconds.
    pub interval_ms: f64,
    /// MAXPACKET of each flow queue's CoDel: never above target while at most this many
    /// bytes remain in the flow queue (ns-3 child `MinBytes`; Linux compares the whole
    /// discipline's backlog with the MTU instead, see docs/aqm/fq_codel.md).
    pub mtu_bytes: u32,
    /// CE-threshold marking, milliseconds; 0 is off ([`FlowQueueing::ce_threshold_ms`]).
    pub ce_threshold_ms: f64,
    /// The flow-queueing settings.
    #[serde(flatten)]
    pub scheduling: FlowQueueing,
}

impl Default for FqCoDelParams {
    /// RFC 8290 §5 and ns-3.37: target 5 ms, interval 100 ms, `MinBytes` 1500, and
    /// [`FlowQueueing::default`].
    fn default() -> Self {
        let codel = CoDelParams::default();
        FqCoDelParams {
            target_ms: codel.target_ms,
            interval_ms: codel.interval_ms,
            mtu_bytes: codel.mtu_bytes,
            ce_threshold_ms: 0.0,
            scheduling: FlowQueueing::default(),
        }
    }
}

impl AqmParams for FqCoDelParams {
    const AQM: &'static str = "fq_codel";
    const TITLE: &'static str = "FQ-CoDel";
    const PARAMS: &'static [ParamDoc] = crate::with_flow_queueing_docs![
        ParamDoc::new(
            "target_ms",
            "ms",
            DURATION_MS,
            "CoDel TARGET of each flow queue"
        ),
        ParamDoc::new(
            "interval_ms",
            "ms",
            DURATION_MS,
            "CoDel INTERVAL of each flow queue"
        ),
        ParamDoc::new(
            "mtu_bytes",
            "bytes",
            Range::Count(0),
            "CoDel MAXPACKET: never above target while at most this many bytes are in the flow queue"
        ),
        CE_THRESHOLD_DOC,
    ];

    fn validate_joint(&self) -> Result<(), ParamError> {
        self.scheduling.validate_joint()
    }

    /// One flow queue's CoDel.
    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(CoDel::new(CoDelParams {
            target_ms: self.target_ms,
            interval_ms: self.interval_ms,
            mtu_bytes: self.mtu_bytes,
        })?))
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::FlowQueues(FlowQueueing {
            ce_threshold_ms: self.ce_threshold_ms,
            ..self.scheduling.clone()
        })
    }
}
