//! Reading an AQM's parameter table generically: every AQM crate parameter struct serialises
//! its defaults, which give the allowed keys and their types; the struct's own `validate`
//! gives the ranges. One code path for every algorithm, with the key path in every error.
//! Every time parameter (a key ending in `_s` or `_ms`) must also suit the simulator's
//! nanosecond clock: 0, or from 1 ns to [`MAX_TIME_S`].

use super::error::ScenarioError;
use super::reader::{num, Section};
use crate::time::MAX_TIME_S;
use aqm::{AqmParams, ParamError, ParamsVisitor};
use serde::de::DeserializeOwned;
use serde::Serialize;
use toml::{Table, Value};

/// The defaults of `P` as a TOML table.
fn defaults_table<P: Serialize + Default>() -> Table {
    match Value::try_from(P::default()) {
        Ok(Value::Table(t)) => t,
        _ => unreachable!("AQM parameter structs serialise to tables"),
    }
}

/// serde's message as one line, without backticks.
fn clean(e: &toml::de::Error) -> String {
    e.message().replace('`', "\"").replace('\n', " ")
}

/// Reads every AQM's table of a `[queue]` section (see [`aqm::registry::for_each`]): the
/// resolved tables in the registry's order, or the first error.
pub struct ReadAll<'s, 'a> {
    /// The `[queue]` section.
    pub section: &'s mut Section<'a>,
    /// (AQM, resolved table) of every AQM with parameters.
    pub tables: Vec<(&'static str, Table)>,
    /// The first error met.
    pub error: Option<ScenarioError>,
}

impl ParamsVisitor for ReadAll<'_, '_> {
    fn visit<P: AqmParams>(&mut self) {
        if P::PARAMS.is_empty() || self.error.is_some() {
            return;
        }
        let path = self.section.path_of(P::AQM);
        match read::<P>(&path, self.section.value(P::AQM), P::validate) {
            Ok(params) => match to_value(&params) {
                Value::Table(t) => self.tables.push((P::AQM, t)),
                _ => unreachable!("AQM parameter structs serialise to tables"),
            },
            Err(e) => self.error = Some(e),
        }
    }
}

/// Read the table at `path` (absent: all defaults) into `P`, then `validate` it.
pub fn read<P: Serialize + DeserializeOwned + Default>(
    path: &str,
    user: Option<&Value>,
    validate: impl Fn(&P) -> Result<(), ParamError>,
) -> Result<P, ScenarioError> {
    let defaults = defaults_table::<P>();
    let user = match user {
        None => Table::new(),
        Some(Value::Table(t)) => t.clone(),
        Some(_) => return Err(ScenarioError::new(path, "must be a table")),
    };
    let mut merged = defaults.clone();
    for (key, value) in user {
        let at = format!("{path}.{key}");
        let Some(default) = defaults.get(&key) else {
            let allowed: Vec<&str> = defaults.keys().map(String::as_str).collect();
            return Err(ScenarioError::new(
                at,
                format!("unknown key; allowed here: {}", allowed.join(", ")),
            ));
        };
        let value = match (default, value) {
            (Value::Float(_), Value::Integer(i)) => Value::Float(i as f64),
            (Value::Float(_), v @ Value::Float(_)) => v,
            (Value::Float(_), _) => return Err(ScenarioError::new(at, "must be a number")),
            (Value::Boolean(_), v @ Value::Boolean(_)) => v,
            (Value::Boolean(_), _) => return Err(ScenarioError::new(at, "must be true or false")),
            (Value::Integer(_), v @ Value::Integer(_)) => v,
            (Value::Integer(_), _) => return Err(ScenarioError::new(at, "must be an integer")),
            (_, v) => v,
        };
        // Deserialise with only this key changed, so a bad value is reported at its key.
        let mut probe = defaults.clone();
        probe.insert(key.clone(), value.clone());
        if let Err(e) = Value::Table(probe).try_into::<P>() {
            return Err(ScenarioError::new(at, clean(&e)));
        }
        merged.insert(key, value);
    }
    let params: P = Value::Table(merged.clone())
        .try_into()
        .map_err(|e| ScenarioError::new(path, clean(&e)))?;
    validate(&params).map_err(|e| ScenarioError::new(format!("{path}.{}", e.field), e.message))?;
    check_times(path, &merged)?;
    Ok(params)
}

/// Every time parameter of `table` is 0, or at least 1 ns and at most [`MAX_TIME_S`].
fn check_times(path: &str, table: &Table) -> Result<(), ScenarioError> {
    for (key, value) in table {
        let seconds_per_unit = if key.ends_with("_ms") {
            1e-3
        } else if key.ends_with("_s") {
            1.0
        } else {
            continue;
        };
        let Value::Float(x) = value else {
            continue;
        };
        let (lo, hi) = (1e-9 / seconds_per_unit, MAX_TIME_S / seconds_per_unit);
        if !(*x == 0.0 || (lo..=hi).contains(x)) {
            let unit = if seconds_per_unit == 1.0 { "s" } else { "ms" };
            return Err(ScenarioError::new(
                format!("{path}.{key}"),
                format!(
                    "must be 0 or a time in [{}, {}] {unit} (from 1 ns to the longest time a \
                     scenario may give)",
                    num(lo),
                    num(hi)
                ),
            ));
        }
    }
    Ok(())
}

/// `P` as a TOML table, for the canonical scenario text.
pub fn to_value<P: Serialize>(params: &P) -> Value {
    Value::try_from(params).expect("AQM parameter structs serialise to tables")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm::RedParams;

    fn red(text: &str) -> Result<RedParams, ScenarioError> {
        let t: Table = text.parse().unwrap();
        read("queue.red", Some(&Value::Table(t)), RedParams::validate)
    }

    #[test]
    fn defaults_integers_and_errors() {
        let p = red("q_min_pkts = 50\nspacing = \"wait\"").unwrap();
        assert_eq!(p.q_min_pkts, 50.0);
        assert_eq!(p.spacing, aqm::Spacing::Wait);
        assert_eq!(p.w, RedParams::default().w);
        let e = red("spacing = \"wat\"").unwrap_err();
        assert_eq!(e.path, "queue.red.spacing");
        assert!(
            e.message.contains("none, uniform, wait") || e.message.contains("\"none\""),
            "{e}"
        );
        assert_eq!(red("pmax = 1").unwrap_err().path, "queue.red.pmax");
        assert_eq!(
            red("gentle = 1").unwrap_err().to_string(),
            "queue.red.gentle: must be true or false"
        );
        assert_eq!(
            red("p_max = 3.0").unwrap_err().to_string(),
            "queue.red.p_max: must be in (0, 1]"
        );
    }

    #[test]
    fn time_parameters_fit_the_clock() {
        let ared = |text: &str| {
            let t: Table = text.parse().unwrap();
            read(
                "queue.ared",
                Some(&Value::Table(t)),
                aqm::AredParams::validate,
            )
        };
        assert!(ared("interval_s = 1e-9").is_ok());
        assert_eq!(
            ared("interval_s = 1e300").unwrap_err().to_string(),
            "queue.ared.interval_s: must be 0 or a time in [1e-9, 1000000000] s (from 1 ns to \
             the longest time a scenario may give)"
        );
        assert!(ared("interval_s = 1e-300").is_err());
        assert_eq!(
            ared("rtt_ms = 1e300").unwrap_err().path,
            "queue.ared.rtt_ms"
        );
    }
}
