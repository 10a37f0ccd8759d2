//! Every AQM the hosts can name and build. An AQM's parameter struct, in the algorithm's own
//! file, implements [`AqmParams`]: the name a scenario's `queue.aqm` takes, a title for plots,
//! what each key means and which values it allows, and how to build the algorithm for a link.
//! [`for_each`] lists them in the order the scenario format does; adding an AQM is its file
//! plus one line there.

use crate::params::AqmParams;
use crate::{
    ABetaRedParams, AnAqmParams, AredParams, BetaRedParams, CakeParams, CoDelParams, CobaltParams,
    DBetaRedParams, DropTailParams, DualPi2Params, FapidnnParams, FqCoDelParams, FqCobaltParams,
    FqPieParams, IapiParams, NeuronPidParams, NrlParams, PiParams, PieParams, RedParams, RemParams,
    SelfTuningRedParams, StepMarkingParams,
};
use std::sync::LazyLock;

/// Work done for each AQM's parameter struct (see [`for_each`]).
pub trait ParamsVisitor {
    /// Called once with each parameter struct type.
    fn visit<P: AqmParams>(&mut self);
}

/// Calls `visitor` with the parameter struct of every AQM, in the order the scenario format
/// lists them.
pub fn for_each(visitor: &mut impl ParamsVisitor) {
    visitor.visit::<DropTailParams>();
    visitor.visit::<RedParams>();
    visitor.visit::<AredParams>();
    visitor.visit::<BetaRedParams>();
    visitor.visit::<ABetaRedParams>();
    visitor.visit::<DBetaRedParams>();
    visitor.visit::<CoDelParams>();
    visitor.visit::<PieParams>();
    visitor.visit::<RemParams>();
    visitor.visit::<PiParams>();
    visitor.visit::<IapiParams>();
    visitor.visit::<NeuronPidParams>();
    visitor.visit::<AnAqmParams>();
    visitor.visit::<FapidnnParams>();
    visitor.visit::<NrlParams>();
    visitor.visit::<SelfTuningRedParams>();
    visitor.visit::<CobaltParams>();
    visitor.visit::<FqCoDelParams>();
    visitor.visit::<FqPieParams>();
    visitor.visit::<FqCobaltParams>();
    visitor.visit::<CakeParams>();
    visitor.visit::<StepMarkingParams>();
    visitor.visit::<DualPi2Params>();
}

/// (name, title) of every AQM, in [`for_each`]'s order.
fn listed() -> Vec<(&'static str, &'static str)> {
    struct Names(Vec<(&'static str, &'static str)>);
    impl ParamsVisitor for Names {
        fn visit<P: AqmParams>(&mut self) {
            self.0.push((P::AQM, P::TITLE));
        }
    }
    let mut names = Names(Vec::new());
    for_each(&mut names);
    names.0
}

static LISTED: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(listed);
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| LISTED.iter().map(|(name, _)| *name).collect());

/// The name of every AQM, as `queue.aqm` takes it, in [`for_each`]'s order.
pub fn names() -> &'static [&'static str] {
    &NAMES
}

/// Whether the AQM called `name` runs more than one queue (flow queueing, CAKE or DualPI2:
/// [`AqmParams::scheduler`] with its default parameters), so that only a simulated port, not
/// a single-queue host, can run it.
pub fn is_flow_queueing(name: &str) -> bool {
    struct Find<'a>(&'a str, bool);
    impl ParamsVisitor for Find<'_> {
        fn visit<P: AqmParams>(&mut self) {
            if P::AQM == self.0 {
                self.1 = P::default().scheduler() != crate::params::Scheduler::SingleQueue;
            }
        }
    }
    let mut find = Find(name, false);
    for_each(&mut find);
    find.1
}

/// The title of the AQM called `name`, if there is one.
pub fn title(name: &str) -> Option<&'static str> {
    LISTED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests;
