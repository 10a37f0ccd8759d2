//! FQ-PIE, flow queueing with PIE (Ramakrishnan, Bhasin, Tahiliani et al., "FQ-PIE Queue
//! Discipline in the Linux Kernel", 2019; ns-3.37 `FqPieQueueDisc`; Linux `sch_fq_pie`): the
//! FQ-CoDel scheduler ([`crate::params::FlowQueueing`], RFC 8290 §4) with a PIE (RFC 8033) on each
//! flow queue instead of CoDel. As in ns-3.37, each flow queue's PIE runs its own update timer
//! from the moment the flow queue is first used; Linux updates every flow queue on one shared
//! timer (docs/aqm/fq_pie.md).

use crate::contract::{Aqm, LinkContext, ParamError};
use crate::delay::pie::{Pie, PieParams};
use crate::params::{AqmParams, FlowQueueing, ParamDoc, Scheduler, CE_THRESHOLD_DOC};
use serde::{Deserialize, Serialize};

/// FQ-PIE parameters: every key of [`PieParams`] (the PIE of each flow queue) and the
/// flow-queueing settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FqPieParams {
    /// The PIE of each flow queue.
    #[serde(flatten)]
    pub pie: PieParams,
    /// CE-threshold marking, milliseconds; 0 is off ([`FlowQueueing::ce_threshold_ms`]).
    pub ce_threshold_ms: f64,
    /// The flow-queueing settings.
    #[serde(flatten)]
    pub scheduling: FlowQueueing,
}

impl Default for FqPieParams {
    /// ns-3.37 `FqPieQueueDisc`, whose PIE attributes default as `PieQueueDisc`'s
    /// ([`PieParams::default`]), and [`FlowQueueing::default`].
    fn default() -> Self {
        FqPieParams {
            pie: PieParams::default(),
            ce_threshold_ms: 0.0,
            scheduling: FlowQueueing::default(),
        }
    }
}

impl AqmParams for FqPieParams {
    const AQM: &'static str = "fq_pie";
    const TITLE: &'static str = "FQ-PIE";
    const PARAMS: &'static [ParamDoc] = crate::concat_param_docs!(
        <PieParams as AqmParams>::PARAMS,
        crate::with_flow_queueing_docs![CE_THRESHOLD_DOC]
    );

    fn validate_joint(&self) -> Result<(), ParamError> {
        self.pie.validate_joint()?;
        self.scheduling.validate_joint()
    }

    /// One flow queue's PIE.
    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Pie::new(self.pie)?))
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::FlowQueues(FlowQueueing {
            ce_threshold_ms: self.ce_threshold_ms,
            ..self.scheduling.clone()
        })
    }
}
