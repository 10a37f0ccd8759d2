//! Reading an AQM's parameter table generically: every AQM crate parameter struct serialises
//! its defaults, which give the allowed keys and their types; the struct's own `validate`
//! gives the ranges. One code path for every algorithm, with the key path in every error.

use super::error::ScenarioError;
use aqm::ParamError;
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
    let params: P = Value::Table(merged)
        .try_into()
        .map_err(|e| ScenarioError::new(path, clean(&e)))?;
    validate(&params).map_err(|e| ScenarioError::new(format!("{path}.{}", e.field), e.message))?;
    Ok(params)
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
}
