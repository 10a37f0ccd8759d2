//! What each AQM's parameters mean: one table per parameter struct, next to the struct in the
//! algorithm's file ([`crate::registry::AqmParams::PARAMS`]), with the unit, the values its
//! `validate` allows and a help line. The defaults are not repeated here: they are the struct's
//! `Default`, which hosts serialise (as the scenario reader does) to get the keys, their types
//! and their default values.

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

/// Allowed values of a flag.
pub(crate) const FLAG: &str = "true, false";
/// Allowed values of `spacing` (the names of [`crate::Spacing`]).
pub(crate) const SPACING: &str = "none, uniform, wait";
