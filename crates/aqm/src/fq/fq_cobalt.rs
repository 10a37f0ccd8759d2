//! FQ-COBALT, flow queueing with COBALT (ns-3.37 `FqCobaltQueueDisc`): the FQ-CoDel scheduler
//! ([`crate::params::FlowQueueing`], RFC 8290 §4) with a COBALT ([`crate::delay::cobalt`],
//! CoDel plus BLUE) on each flow queue. A flow queue's BLUE hears of the overlimit drops taken
//! from it and of its being found empty ([`crate::Aqm::on_overflow`], [`crate::Aqm::on_empty`]).
//! COBALT's CE threshold is applied by the scheduler (as for FQ-CoDel), to packets COBALT
//! delivers unmarked: the marking ns-3's child `CobaltQueueDisc` does.

use crate::contract::{Aqm, LinkContext, ParamError};
use crate::delay::cobalt::{Cobalt, CobaltParams};
use crate::params::{AqmParams, FlowQueueing, ParamDoc, Scheduler};
use serde::{Deserialize, Serialize};

/// FQ-COBALT parameters: every key of [`CobaltParams`] (the COBALT of each flow queue; its
/// `ce_threshold_ms` is the discipline's CE threshold) and the flow-queueing settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FqCobaltParams {
    /// The COBALT of each flow queue.
    #[serde(flatten)]
    pub cobalt: CobaltParams,
    /// The flow-queueing settings.
    #[serde(flatten)]
    pub scheduling: FlowQueueing,
}

impl AqmParams for FqCobaltParams {
    const AQM: &'static str = "fq_cobalt";
    const TITLE: &'static str = "FQ-COBALT";
    const PARAMS: &'static [ParamDoc] = crate::concat_param_docs!(
        <CobaltParams as AqmParams>::PARAMS,
        crate::with_flow_queueing_docs![]
    );

    fn validate_joint(&self) -> Result<(), ParamError> {
        self.cobalt.validate_joint()?;
        self.scheduling.validate_joint()
    }

    /// One flow queue's COBALT, without the CE threshold the scheduler applies.
    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        let params = CobaltParams {
            ce_threshold_ms: 0.0,
            ..self.cobalt
        };
        Ok(Box::new(Cobalt::new(params)?))
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::FlowQueues(FlowQueueing {
            ce_threshold_ms: self.cobalt.ce_threshold_ms,
            ..self.scheduling.clone()
        })
    }
}
