//! aqmlab's packet-level TCP/AQM simulator: deterministic, integer-nanosecond event loop over
//! a dumbbell or a chain of bottlenecks, with NewReno/CUBIC TCP and UDP sources, and an AQM on
//! every managed port.
//!
//! Start from [`run_scenario`]: scenario text and `key=value` overrides in, a
//! [`result::RunResult`] out.

pub mod aqm_factory;
pub mod events;
pub mod flow;
pub mod metrics;
pub mod net;
pub mod output_size;
pub mod packet;
pub mod probe;
pub mod result;
pub mod scenario;
pub mod simulator;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod udp;

pub use result::RunResult;
pub use scenario::{Scenario, ScenarioError};
pub use simulator::Simulation;

/// Validate `text` with `sets` applied and return the canonical scenario text.
pub fn resolve_scenario(text: &str, sets: &[(String, String)]) -> Result<String, ScenarioError> {
    let sc = scenario::load(text, sets)?;
    // Building the flows checks the schedule too (for example removing more than are active).
    traffic::plan(&sc.traffic, sc.duration_s, sc.seed)?;
    for (path, queue, rate_bps) in sc.queues() {
        aqm_factory::discipline_at(&path, queue, rate_bps)?;
    }
    Ok(scenario::canonical::to_toml(&sc))
}

/// An error of a run: a bad scenario, or an abort requested by the progress callback.
#[derive(Debug)]
pub enum RunError<E> {
    /// The scenario is invalid.
    Scenario(ScenarioError),
    /// The progress callback asked to stop.
    Aborted(E),
}

/// Validate and simulate a scenario; `seed` overrides the scenario's own seed.
pub fn run_scenario<E>(
    text: &str,
    sets: &[(String, String)],
    seed: Option<u64>,
    progress: impl FnMut(f64) -> Result<(), E>,
) -> Result<RunResult, RunError<E>> {
    let sc = scenario::load(text, sets).map_err(RunError::Scenario)?;
    run_loaded(sc, seed, progress)
}

/// Simulate a scenario already read ([`scenario::load`]); `seed` overrides its own seed.
pub fn run_loaded<E>(
    mut sc: Scenario,
    seed: Option<u64>,
    progress: impl FnMut(f64) -> Result<(), E>,
) -> Result<RunResult, RunError<E>> {
    if let Some(seed) = seed {
        sc.seed = seed;
    }
    let sim = Simulation::new(sc).map_err(RunError::Scenario)?;
    sim.run(progress).map_err(RunError::Aborted)
}
