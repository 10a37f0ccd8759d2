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

/// Set `key` (dotted) to `value` inside `table`, creating intermediate tables.
pub fn apply(table: &mut Table, key: &str, value: &str) -> Result<(), ScenarioError> {
    let parts: Vec<&str> = key.split('.').collect();
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
    }
}
