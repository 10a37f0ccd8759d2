//! Builds the queue discipline a scenario's queue names, for the link it manages, from the
//! AQM registry: one queue with the AQM, or flow queues each with an instance of it when the
//! AQM's parameters ask for flow queueing ([`aqm::AqmParams::scheduler`]), or CAKE or DualPI2,
//! disciplines of their own; that discipline in
//! each priority band when the queue has bands (`[queue.prio]`), and all of it behind the
//! token-bucket shaper when the queue has one (`[queue.tbf]`).

use crate::net::qdisc::cake::Cake;
use crate::net::qdisc::discipline::prio::Prio;
use crate::net::qdisc::discipline::{Discipline, Shaped};
use crate::net::qdisc::dualpi2::DualPi2;
use crate::net::qdisc::flow_queues::FlowQueues;
use crate::net::qdisc::single::SingleQueue;
use crate::net::qdisc::token_bucket::TokenBucket;
use crate::scenario::{QueueSpec, ScenarioError};
use aqm::{Aqm, AqmParams, LinkContext, ParamsVisitor, Scheduler};
use toml::{Table, Value};

/// The AQM called `name` with `params` (its `[queue.<name>]` table, keys as the scenario format
/// has them) for a single queue of `limit_pkts` feeding a link of `rate_bps`: what a host that
/// runs one queue outside the simulator (the Python stepper, the C ABI) builds. Errors are the
/// scenario reader's, with paths inside the queue's table (`red.p_max: must be in (0, 1]`); a
/// multi-queue discipline is refused, naming `aqm`.
pub fn build_named(
    name: &str,
    params: Table,
    limit_pkts: u32,
    rate_bps: f64,
) -> Result<Box<dyn Aqm>, ScenarioError> {
    let mut queue = Table::new();
    queue.insert("aqm".into(), Value::String(name.to_string()));
    queue.insert("limit_pkts".into(), Value::Integer(limit_pkts.into()));
    if !params.is_empty() {
        queue.insert(name.to_string(), Value::Table(params));
    }
    let spec = crate::scenario::parse::queue_spec(&queue)?;
    match one_discipline("queue", &spec, rate_bps)? {
        Discipline::Single(q) => Ok(q.into_aqm()),
        Discipline::FlowQueues(_)
        | Discipline::Cake(_)
        | Discipline::DualPi2(_)
        | Discipline::Prio(_)
        | Discipline::Shaped(_) => Err(ScenarioError::new(
            "aqm",
            format!(
                "{} is a multi-queue discipline (flow queueing, CAKE or DualPI2), which runs \
                 only inside aqmlab's simulator; choose a single-queue AQM",
                spec.aqm
            ),
        )),
    }
}

/// The discipline of the queue read at `path` (`queue`, or a chain link's
/// `topology.links[i].queue`), behind its shaper if it has one: errors name the parameter
/// under it.
pub fn discipline_at(
    path: &str,
    spec: &QueueSpec,
    rate_bps: f64,
) -> Result<Discipline, ScenarioError> {
    shaped(path, spec, rate_bps, unshaped_at(path, spec, rate_bps)?)
}

/// A single queue of `spec` run by `aqm`, an AQM given from outside (the Python API's custom
/// AQM): refused, naming `path.prio.bands`, when the queue has priority bands.
pub fn custom_single(
    path: &str,
    spec: &QueueSpec,
    rate_bps: f64,
    aqm: Box<dyn Aqm>,
) -> Result<Discipline, ScenarioError> {
    one_queue(path, spec)?;
    Ok(single(spec, rate_bps, aqm))
}

/// An error naming `path.prio.bands` when the queue has priority bands, for a port given one
/// AQM instance.
fn one_queue(path: &str, spec: &QueueSpec) -> Result<(), ScenarioError> {
    if spec.prio.bands == 0 {
        return Ok(());
    }
    Err(ScenarioError::new(
        format!("{path}.prio.bands"),
        "must be 0 here: priority bands each run an AQM instance, and one AQM instance is given",
    ))
}

/// `inner` behind the token-bucket shaper of `spec` (`[queue.tbf]`) when its rate is set: a
/// rate above the link's is refused, naming `path.tbf.rate_mbps`.
pub fn shaped(
    path: &str,
    spec: &QueueSpec,
    rate_bps: f64,
    inner: Discipline,
) -> Result<Discipline, ScenarioError> {
    let t = &spec.tbf;
    if t.rate_mbps == 0.0 {
        return Ok(inner);
    }
    if t.rate_mbps * 1e6 > rate_bps {
        return Err(ScenarioError::new(
            format!("{path}.tbf.rate_mbps"),
            format!(
                "must be 0 (no shaper) or at most the link's rate ({} Mb/s), got {}",
                rate_bps / 1e6,
                t.rate_mbps
            ),
        ));
    }
    let bucket = TokenBucket::new(
        t.rate_mbps * 1e6,
        t.burst_bytes,
        t.peak_rate_mbps * 1e6,
        t.mtu_bytes,
    );
    Ok(Discipline::Shaped(Box::new(Shaped {
        bucket,
        held: None,
        inner,
    })))
}

/// The discipline of the queue at `path` without its shaper: the AQM's discipline, in each of
/// the priority bands when the queue has them.
fn unshaped_at(path: &str, spec: &QueueSpec, rate_bps: f64) -> Result<Discipline, ScenarioError> {
    if spec.prio.bands == 0 {
        return one_discipline(path, spec, rate_bps);
    }
    let bands = (0..spec.prio.bands)
        .map(|_| one_discipline(path, spec, rate_bps))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Discipline::Prio(Box::new(Prio::new(
        bands,
        spec.prio.priomap,
    ))))
}

/// The discipline of the AQM the queue at `path` names.
fn one_discipline(
    path: &str,
    spec: &QueueSpec,
    rate_bps: f64,
) -> Result<Discipline, ScenarioError> {
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

/// A single queue of `spec` for a link of `rate_bps`, run by `aqm`.
pub fn single(spec: &QueueSpec, rate_bps: f64, aqm: Box<dyn Aqm>) -> Discipline {
    Discipline::Single(SingleQueue::new(
        spec.limit_pkts,
        spec.limit_bytes,
        rate_bps,
        aqm,
    ))
}

/// Builds the discipline of `spec.aqm` from its resolved table.
struct Build<'a> {
    path: &'a str,
    spec: &'a QueueSpec,
    link: LinkContext,
    built: Option<Result<Discipline, ScenarioError>>,
}

impl Build<'_> {
    fn discipline<P: AqmParams>(&self, params: P) -> Result<Discipline, ScenarioError> {
        let error = |e: aqm::ParamError| {
            ScenarioError::new(format!("{}.{}.{}", self.path, P::AQM, e.field), e.message)
        };
        let (spec, link) = (self.spec, self.link);
        match params.scheduler() {
            Scheduler::SingleQueue => Ok(single(
                spec,
                link.rate_bps,
                params.build(link).map_err(error)?,
            )),
            Scheduler::FlowQueues(fq) => {
                // Build one instance now, so that a bad value is reported before the run.
                params.clone().build(link).map_err(error)?;
                let make = Box::new(move || {
                    params
                        .clone()
                        .build(link)
                        .expect("parameters checked when the discipline was built")
                });
                Ok(Discipline::FlowQueues(Box::new(FlowQueues::new(
                    &fq,
                    spec.limit_pkts,
                    spec.limit_bytes,
                    link.rate_bps,
                    make,
                ))))
            }
            Scheduler::Cake(settings) => {
                // Refuses a shaper faster than the link, naming the key.
                params.build(link).map_err(error)?;
                Ok(Discipline::Cake(Box::new(Cake::new(
                    settings,
                    spec.limit_pkts,
                    spec.limit_bytes,
                    link.rate_bps,
                ))))
            }
            Scheduler::DualPi2(params) => {
                params.validate().map_err(error)?;
                Ok(Discipline::DualPi2(Box::new(DualPi2::new(
                    params,
                    spec.limit_pkts,
                    spec.limit_bytes,
                ))))
            }
        }
    }
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
        self.built = Some(self.discipline(params));
    }
}
