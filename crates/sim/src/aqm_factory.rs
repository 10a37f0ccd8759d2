//! Builds the AQM a scenario names.

use crate::scenario::{AqmKind, QueueSpec, ScenarioError};
use aqm::{Aqm, DropTail, Red};

/// The AQM of the bottleneck queue.
pub fn build(spec: &QueueSpec) -> Result<Box<dyn Aqm>, ScenarioError> {
    Ok(match spec.aqm {
        AqmKind::DropTail => Box::new(DropTail),
        AqmKind::Red => Box::new(
            Red::new(spec.red.clone())
                .map_err(|e| ScenarioError::new(format!("queue.red.{}", e.field), e.message))?,
        ),
    })
}
