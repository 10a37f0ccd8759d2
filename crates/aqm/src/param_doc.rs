//! What each AQM's parameters mean: one table per parameter struct, next to the struct in the
//! algorithm's file, with the unit, the values its `validate` allows and a help line. The
//! defaults are not repeated here: they are the struct's `Default`, which hosts serialise (as
//! the scenario reader does) to get the keys, their types and their default values.

use crate::{
    ABetaRedParams, AredParams, BetaRedParams, CoDelParams, DBetaRedParams, PieParams, RedParams,
};
use serde::Serialize;

/// One parameter of an AQM, as a scenario's `[queue.<aqm>]` table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamDoc {
    /// The key, units in its name (`q_min_pkts`, `target_ms`).
    pub name: &'static str,
    /// The unit (`packets`, `ms`, `bytes`), empty for a pure number, a flag or a choice.
    pub unit: &'static str,
    /// The values the struct's `validate` accepts, in words (`(0, 1]`, `> q_min_pkts`).
    pub allowed: &'static str,
    /// What it does, one line.
    pub help: &'static str,
}

impl ParamDoc {
    /// A parameter `name` in `unit`, allowed values `allowed`, help line `help`.
    pub const fn new(
        name: &'static str,
        unit: &'static str,
        allowed: &'static str,
        help: &'static str,
    ) -> Self {
        ParamDoc {
            name,
            unit,
            allowed,
            help,
        }
    }
}

/// An AQM's parameter struct with the description of every field, in declaration order.
pub trait DescribedParams: Serialize + Default {
    /// The AQM's name, as `queue.aqm` takes it.
    const AQM: &'static str;
    /// One entry per field of the struct.
    const PARAMS: &'static [ParamDoc];
}

/// Work done for each AQM's parameter struct (see [`for_each`]).
pub trait ParamsVisitor {
    /// Called once with each parameter struct type.
    fn visit<P: DescribedParams>(&mut self);
}

/// Calls `visitor` with the parameter struct of every AQM that has parameters (all but drop
/// tail), in the order the scenario format lists the AQMs.
pub fn for_each(visitor: &mut impl ParamsVisitor) {
    visitor.visit::<RedParams>();
    visitor.visit::<AredParams>();
    visitor.visit::<BetaRedParams>();
    visitor.visit::<ABetaRedParams>();
    visitor.visit::<DBetaRedParams>();
    visitor.visit::<CoDelParams>();
    visitor.visit::<PieParams>();
}

/// Allowed values of a flag.
pub(crate) const FLAG: &str = "true, false";
/// Allowed values of `spacing` (the names of [`crate::Spacing`]).
pub(crate) const SPACING: &str = "none, uniform, wait";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_decision::SPACING_NAMES;
    use std::collections::BTreeSet;

    /// Every AQM's described names and its serialised default keys.
    struct Collect(Vec<(&'static str, Vec<&'static str>, BTreeSet<String>)>);

    impl ParamsVisitor for Collect {
        fn visit<P: DescribedParams>(&mut self) {
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
        assert_eq!(all.len(), 7);
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
            fn visit<P: DescribedParams>(&mut self) {
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
            BTreeSet::from(["red", "ared", "betared", "abetared", "dbetared", "codel", "pie"])
        );
    }
}
