//! The parameters of an AQM: the [`AqmParams`] trait every parameter struct implements, and
//! what each parameter means ([`ParamDoc`]: unit, allowed values, help line), one table per
//! struct, next to the struct in the algorithm's file ([`AqmParams::PARAMS`]).
//!
//! Each parameter's allowed values are stated once, as a [`Range`] in that table: the text
//! `aqmlab list --params` shows and the check `validate` makes both come from it. The defaults
//! are not repeated here either: they are the struct's `Default`, which hosts serialise (as the
//! scenario reader does) to get the keys, their types and their default values.

mod flow_queueing;
mod range;

pub use flow_queueing::{FlowQueueing, Scheduler, CE_THRESHOLD_DOC};
pub use range::{
    Bound, Limit, Other, Range, DURATION_MS, FRACTION, NON_NEGATIVE, POSITIVE, POSITIVE_FRACTION,
};

use crate::contract::{Aqm, LinkContext, ParamError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// The parameters of one AQM, which know their algorithm. `Default` gives the defaults;
/// serialised, they give the keys of the scenario's `[queue.<AQM>]` table and their types.
pub trait AqmParams:
    Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + 'static
{
    /// The AQM's name, as `queue.aqm` takes it.
    const AQM: &'static str;
    /// The AQM's name in plots and reports.
    const TITLE: &'static str;
    /// One entry per field of the struct, in declaration order.
    const PARAMS: &'static [ParamDoc];

    /// Check every parameter against its range in [`AqmParams::PARAMS`], in that order, then
    /// [`AqmParams::validate_joint`]; the error names the field.
    fn validate(&self) -> Result<(), ParamError> {
        check_fields(self, Self::PARAMS)?;
        self.validate_joint()
    }

    /// The checks that no single parameter's range states: conditions on several parameters
    /// at once. None by default.
    fn validate_joint(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// The algorithm with these parameters, for a link of `link`'s rate and buffer; under
    /// flow queueing ([`AqmParams::scheduler`]), the AQM of one flow queue.
    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError>;

    /// How the host queues the packets this AQM manages: one queue (the default), or flow
    /// queueing with one [`AqmParams::build`] instance per flow queue.
    fn scheduler(&self) -> Scheduler {
        Scheduler::SingleQueue
    }
}

/// Two `&'static [ParamDoc]` tables joined into one, in a constant (the table of a parameter
/// struct that holds another's keys, such as FQ-PIE's PIE keys and its flow-queueing keys).
#[macro_export]
macro_rules! concat_param_docs {
    ($first:expr, $second:expr $(,)?) => {{
        const FIRST: &[$crate::ParamDoc] = $first;
        const SECOND: &[$crate::ParamDoc] = $second;
        const N: usize = FIRST.len() + SECOND.len();
        const ALL: [$crate::ParamDoc; N] = {
            let mut all = [FIRST[0]; N];
            let mut i = 0;
            while i < N {
                all[i] = if i < FIRST.len() {
                    FIRST[i]
                } else {
                    SECOND[i - FIRST.len()]
                };
                i += 1;
            }
            all
        };
        &ALL
    }};
}

/// One parameter of an AQM, as a scenario's `[queue.<aqm>]` table names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamDoc {
    /// The key, units in its name (`q_min_pkts`, `target_ms`).
    pub name: &'static str,
    /// The unit (`packets`, `ms`, `bytes`), empty for a pure number, a flag or a choice.
    pub unit: &'static str,
    /// The values allowed (`(0, 1]`, `> q_min_pkts`): shown as text, checked by `validate`.
    pub range: Range,
    /// What it does, one line.
    pub help: &'static str,
}

impl ParamDoc {
    /// A parameter `name` in `unit`, allowed values `range`, help line `help`.
    pub const fn new(
        name: &'static str,
        unit: &'static str,
        range: Range,
        help: &'static str,
    ) -> Self {
        ParamDoc {
            name,
            unit,
            range,
            help,
        }
    }
}

/// A parameter's value as a check sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value<'a> {
    /// A number (a whole number too).
    Number(f64),
    /// A flag.
    Flag(bool),
    /// A name (a choice).
    Name(&'a str),
}

/// Check each value against the range of its parameter: first each on its own, in order (a
/// value that is wrong whatever the others are, such as a NaN, is reported on itself), then
/// the relations with the other parameters, in order, a bound that names another parameter
/// taking that parameter's value from `values`. The error names the first parameter outside
/// its range.
///
/// Panics if a bound names a parameter missing from `values` or one that is not a number (a
/// table that contradicts itself, which the registry's tests rule out).
fn check(values: &[(&ParamDoc, Value)]) -> Result<(), ParamError> {
    let other = |name: &str| {
        let (doc, value) = values
            .iter()
            .find(|(doc, _)| doc.name == name)
            .unwrap_or_else(|| panic!("a range names {name}, which is not in the table"));
        match value {
            Value::Number(x) => (*x, doc.range),
            _ => panic!("a range names {name}, which is not a number"),
        }
    };
    for relations in [false, true] {
        for (doc, value) in values {
            let ok = match (*value, doc.range) {
                (Value::Number(x), range) if relations => range.allows(x, &other),
                (Value::Number(x), range) => range.allows_alone(x, &other),
                (Value::Flag(_), Range::Flag) => true,
                (Value::Name(name), Range::Choice(names)) => names.contains(&name),
                _ => false,
            };
            if !ok {
                return Err(ParamError::new(doc.name, doc.range.message(&other)));
            }
        }
    }
    Ok(())
}

/// Check numbers against the ranges of their parameters, in order (a curve built from numbers
/// rather than a parameter struct).
pub(crate) fn check_numbers(values: &[(&ParamDoc, f64)]) -> Result<(), ParamError> {
    let values: Vec<(&ParamDoc, Value)> = values
        .iter()
        .map(|&(doc, x)| (doc, Value::Number(x)))
        .collect();
    check(&values)
}

/// Check every field of `params` against its entry in `docs`, in the order of `docs`: the
/// values are the fields of the serialised struct.
fn check_fields<P: Serialize>(params: &P, docs: &[ParamDoc]) -> Result<(), ParamError> {
    let table = match toml::Value::try_from(params) {
        Ok(toml::Value::Table(t)) => t,
        _ => unreachable!("AQM parameter structs serialise to tables"),
    };
    let values: Vec<(&ParamDoc, Value)> = docs
        .iter()
        .map(|doc| {
            let value = match &table[doc.name] {
                toml::Value::Float(x) => Value::Number(*x),
                toml::Value::Integer(i) => Value::Number(*i as f64),
                toml::Value::Boolean(b) => Value::Flag(*b),
                toml::Value::String(s) => Value::Name(s),
                other => unreachable!("{}: AQM parameters are scalars, got {other}", doc.name),
            };
            (doc, value)
        })
        .collect();
    check(&values)
}
