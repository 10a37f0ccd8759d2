//! Every AQM the hosts can name and build. An AQM's parameter struct, in the algorithm's own
//! file, implements [`AqmParams`]: the name a scenario's `queue.aqm` takes, a title for plots,
//! what each key means, which values are allowed, and how to build the algorithm for a link.
//! [`for_each`] lists them in the order the scenario format does; adding an AQM is its file
//! plus one line there.

use crate::adaptive_beta::LinkContext;
use crate::contract::{Aqm, ParamError};
use crate::param_doc::ParamDoc;
use crate::{
    ABetaRedParams, AnAqmParams, AredParams, BetaRedParams, CoDelParams, DBetaRedParams,
    DropTailParams, FapidnnParams, IapiParams, NeuronPidParams, NrlParams, PiParams, PieParams,
    RedParams, RemParams, SelfTuningRedParams,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::sync::LazyLock;

/// The parameters of one AQM, which know their algorithm. `Default` gives the defaults;
/// serialised, they give the keys of the scenario's `[queue.<AQM>]` table and their types.
pub trait AqmParams: Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq {
    /// The AQM's name, as `queue.aqm` takes it.
    const AQM: &'static str;
    /// The AQM's name in plots and reports.
    const TITLE: &'static str;
    /// One entry per field of the struct, in declaration order.
    const PARAMS: &'static [ParamDoc];

    /// Check every parameter against its allowed range; the error names the field.
    fn validate(&self) -> Result<(), ParamError>;

    /// The algorithm with these parameters, for a link of `link`'s rate and buffer.
    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError>;
}

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

/// The title of the AQM called `name`, if there is one.
pub fn title(name: &str) -> Option<&'static str> {
    LISTED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_decision::SPACING_NAMES;
    use std::collections::BTreeSet;

    /// Every AQM's described names and its serialised default keys.
    struct Collect(Vec<(&'static str, Vec<&'static str>, BTreeSet<String>)>);

    impl ParamsVisitor for Collect {
        fn visit<P: AqmParams>(&mut self) {
            let keys = match toml::Value::try_from(P::default()) {
                Ok(toml::Value::Table(t)) => t.keys().cloned().collect(),
                other => panic!("{} defaults are not a table: {other:?}", P::AQM),
            };
            let names = P::PARAMS.iter().map(|p| p.name).collect();
            self.0.push((P::AQM, names, keys));
        }
    }

    fn collect() -> Vec<(&'static str, Vec<&'static str>, BTreeSet<String>)> {
        let mut c = Collect(Vec::new());
        for_each(&mut c);
        c.0
    }

    #[test]
    fn every_serialised_key_is_described_once() {
        let all = collect();
        assert_eq!(all.len(), 16);
        for (aqm, names, keys) in all {
            let described: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
            assert_eq!(
                described.len(),
                names.len(),
                "{aqm}: a name is described twice"
            );
            assert_eq!(described, keys, "{aqm}: described names != serialised keys");
        }
    }

    #[test]
    fn descriptions_are_complete_one_liners() {
        struct Check;
        impl ParamsVisitor for Check {
            fn visit<P: AqmParams>(&mut self) {
                for p in P::PARAMS {
                    assert!(!p.allowed.is_empty() && !p.help.is_empty(), "{}", p.name);
                    assert!(!p.help.contains('\n') && !p.allowed.contains('\n'));
                    if p.name == "spacing" {
                        assert_eq!(p.allowed, SPACING_NAMES.join(", "));
                    }
                }
            }
        }
        for_each(&mut Check);
    }

    #[test]
    fn aqm_names_are_distinct() {
        let names: BTreeSet<&str> = collect().iter().map(|(aqm, _, _)| *aqm).collect();
        assert_eq!(
            names,
            BTreeSet::from([
                "droptail",
                "red",
                "ared",
                "betared",
                "abetared",
                "dbetared",
                "codel",
                "pie",
                "rem",
                "pi",
                "iapi",
                "neuron_pid",
                "an_aqm",
                "fapidnn",
                "nrl",
                "self_tuning_red"
            ])
        );
    }
}
