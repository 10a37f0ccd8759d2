//! Builds the AQM a scenario names, for the link it manages, from the registry.

use crate::scenario::{QueueSpec, ScenarioError};
use aqm::{Aqm, AqmParams, LinkContext, ParamsVisitor};
use toml::{Table, Value};

/// The AQM of a queue of `spec` feeding a link of `rate_bps` (the scenario's `[queue]`).
pub fn build(spec: &QueueSpec, rate_bps: f64) -> Result<Box<dyn Aqm>, ScenarioError> {
    build_at("queue", spec, rate_bps)
}

/// Like [`build`] for the queue read at `path` (a chain link's `topology.links[i].queue`):
/// errors name the parameter under it.
pub fn build_at(
    path: &str,
    spec: &QueueSpec,
    rate_bps: f64,
) -> Result<Box<dyn Aqm>, ScenarioError> {
    let mut builder = Build {
        path,
        spec,
        link: LinkContext {
            rate_bps,
            buffer_pkts: spec.limit_pkts,
        },
        built: None,
    };
    aqm::registry::for_each(&mut builder);
    builder.built.expect("the scenario names a registered AQM")
}

/// Builds the AQM `spec.aqm` from its resolved table.
struct Build<'a> {
    path: &'a str,
    spec: &'a QueueSpec,
    link: LinkContext,
    built: Option<Result<Box<dyn Aqm>, ScenarioError>>,
}

impl ParamsVisitor for Build<'_> {
    fn visit<P: AqmParams>(&mut self) {
        if P::AQM != self.spec.aqm {
            return;
        }
        let table = self
            .spec
            .params_of(P::AQM)
            .cloned()
            .unwrap_or_else(Table::new);
        let params: P = Value::Table(table)
            .try_into()
            .expect("resolved parameter tables deserialise");
        self.built = Some(params.build(self.link).map_err(|e| {
            ScenarioError::new(format!("{}.{}.{}", self.path, P::AQM, e.field), e.message)
        }));
    }
}
