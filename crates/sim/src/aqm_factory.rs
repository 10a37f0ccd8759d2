//! Builds the AQM a scenario names, for the link it manages.

use crate::scenario::{AqmKind, QueueSpec, ScenarioError};
use aqm::{
    ABetaRed, Aqm, Ared, BetaRed, CoDel, DBetaRed, DropTail, LinkContext, ParamError, Pie, Red,
};

/// The AQM of a queue of `spec` feeding a link of `rate_bps`.
pub fn build(spec: &QueueSpec, rate_bps: f64) -> Result<Box<dyn Aqm>, ScenarioError> {
    let link = LinkContext {
        rate_bps,
        buffer_pkts: spec.limit_pkts,
    };
    let at = |e: ParamError| {
        ScenarioError::new(format!("queue.{}.{}", spec.aqm.name(), e.field), e.message)
    };
    Ok(match spec.aqm {
        AqmKind::DropTail => Box::new(DropTail),
        AqmKind::Red => Box::new(Red::new(spec.red.clone()).map_err(at)?),
        AqmKind::Ared => Box::new(Ared::new(spec.ared.clone(), rate_bps).map_err(at)?),
        AqmKind::BetaRed => Box::new(BetaRed::new(spec.betared.clone()).map_err(at)?),
        AqmKind::ABetaRed => Box::new(ABetaRed::new(spec.abetared.clone(), link).map_err(at)?),
        AqmKind::DBetaRed => Box::new(DBetaRed::new(spec.dbetared.clone(), link).map_err(at)?),
        AqmKind::CoDel => Box::new(CoDel::new(spec.codel.clone()).map_err(at)?),
        AqmKind::Pie => Box::new(Pie::new(spec.pie.clone()).map_err(at)?),
    })
}
