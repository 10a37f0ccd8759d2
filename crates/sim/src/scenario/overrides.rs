//! `--set key.path=value` overrides, applied to the parsed TOML before validation.

use super::error::ScenarioError;
use toml::{Table, Value};

/// Parse `value` as a TOML literal (`800`, `0.1`, `true`, `"red"`, `[0, 250]`); a bare word
/// that is not a literal is taken as a string.
pub fn parse_value(value: &str) -> Value {
    let doc = format!("v = {value}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(value.to_string())),
        Err(_) => Value::String(value.to_string()),
    }
}

/// The most keys an override path may hold (scenario keys hold at most three).
const MAX_KEY_DEPTH: usize = 16;

/// Set `key` (dotted) to `value` inside `table`, creating intermediate tables.
pub fn apply(table: &mut Table, key: &str, value: &str) -> Result<(), ScenarioError> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.len() > MAX_KEY_DEPTH {
        return Err(ScenarioError::new(
            format!("{}...", parts[..MAX_KEY_DEPTH].join(".")),
            format!("override key must be a dotted path of at most {MAX_KEY_DEPTH} keys"),
        ));
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::new(
            key,
            "override key must be a dotted path such as queue.red.p_max",
        ));
    }
    let (last, parents) = parts.split_last().expect("split of a non-empty key");
    let mut current = table;
    for (i, part) in parents.iter().enumerate() {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        current = match entry {
            Value::Table(t) => t,
            _ => {
                return Err(ScenarioError::new(
                    parts[..=i].join("."),
                    "is not a table, so it has no keys to set",
                ))
            }
        };
    }
    current.insert(last.to_string(), parse_value(value));
    Ok(())
}

/// The dotted keys that overrides set, so that a message can say where a value came from.
#[derive(Clone, Debug, Default)]
pub struct Overridden(Vec<String>);

impl Overridden {
    /// The keys of `sets`.
    pub fn of(sets: &[(String, String)]) -> Self {
        Overridden(sets.iter().map(|(k, _)| k.clone()).collect())
    }

    /// Whether an override set the value at `path` (itself, or a table that holds it).
    pub fn covers(&self, path: &str) -> bool {
        self.0.iter().any(|k| {
            path.strip_prefix(k.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }

    /// Where the value at `path` came from, as a message says it.
    pub fn origin(&self, path: &str) -> &'static str {
        if self.covers(path) {
            "from an override"
        } else {
            "from the scenario text"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_bare_words() {
        assert_eq!(parse_value("800"), Value::Integer(800));
        assert_eq!(parse_value("0.5"), Value::Float(0.5));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("red"), Value::String("red".into()));
        assert_eq!(parse_value("\"red\""), Value::String("red".into()));
    }

    #[test]
    fn nested_keys_are_created() {
        let mut t = Table::new();
        apply(&mut t, "queue.red.p_max", "0.2").unwrap();
        assert_eq!(t["queue"]["red"]["p_max"], Value::Float(0.2));
        let err = apply(&mut t, "queue.red.p_max.x", "1").unwrap_err();
        assert_eq!(err.path, "queue.red.p_max");
        let deep = vec!["a"; 100_000].join(".");
        let err = apply(&mut t, &deep, "1").unwrap_err();
        assert_eq!(err.path, format!("{}...", vec!["a"; 16].join(".")));
        assert!(t.get("a").is_none());
    }

    #[test]
    fn overridden_keys_cover_their_values() {
        let o = Overridden::of(&[
            ("measure".to_string(), "{}".to_string()),
            ("duration_s".to_string(), "10".to_string()),
        ]);
        assert!(o.covers("measure.window"));
        assert!(o.covers("duration_s"));
        assert!(!o.covers("duration"));
        assert!(!o.covers("measurement.window"));
        assert_eq!(o.origin("seed"), "from the scenario text");
        assert_eq!(o.origin("measure.window"), "from an override");
    }
}
