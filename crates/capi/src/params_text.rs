//! An AQM's parameters as one line of text, the form a C or C++ host passes them in (an ns-3
//! attribute is a string): `key=value` pairs separated by spaces, commas or semicolons, such as
//! `q_min_pkts=50, p_max=0.1, gentle=true, spacing=wait`. Each value becomes what a scenario's
//! `[queue.<aqm>]` table would hold: a flag (`true`, `false`), an integer, a number, or else a
//! name (quotes optional). The keys and their ranges are then checked by the scenario reader.

use toml::{Table, Value};

/// The pairs of `text` as the parameter table of AQM `aqm`; a one-line error naming the key
/// (`red.p_max: given twice`) for a pair without `=`, an empty key or a repeated key.
pub fn parse(aqm: &str, text: &str) -> Result<Table, String> {
    let mut table = Table::new();
    let pairs = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|s| !s.is_empty());
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!(
                "{aqm}: \"{pair}\" is not key=value; give key=value pairs separated by \
                 spaces, commas or semicolons"
            ));
        };
        if key.is_empty() || value.is_empty() {
            return Err(format!(
                "{aqm}: \"{pair}\" needs a key and a value; give key=value pairs"
            ));
        }
        if table.insert(key.to_string(), scalar(value)).is_some() {
            return Err(format!("{aqm}.{key}: given twice"));
        }
    }
    Ok(table)
}

/// One value as TOML: a flag, an integer, a number, else a name without its quotes.
fn scalar(text: &str) -> Value {
    match text {
        "true" => return Value::Boolean(true),
        "false" => return Value::Boolean(false),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Value::Integer(i);
    }
    if let Ok(x) = text.parse::<f64>() {
        return Value::Float(x);
    }
    let unquoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    Value::String(unquoted.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_become_typed_values() {
        let t = parse(
            "red",
            "q_min_pkts=50, p_max=0.1;gentle=true  spacing=\"wait\"",
        )
        .unwrap();
        assert_eq!(t["q_min_pkts"], Value::Integer(50));
        assert_eq!(t["p_max"], Value::Float(0.1));
        assert_eq!(t["gentle"], Value::Boolean(true));
        assert_eq!(t["spacing"], Value::String("wait".into()));
        assert!(parse("red", "  ").unwrap().is_empty());
    }

    #[test]
    fn malformed_pairs_name_the_key() {
        assert!(parse("red", "p_max")
            .unwrap_err()
            .starts_with("red: \"p_max\""));
        assert!(parse("red", "=3").unwrap_err().contains("needs a key"));
        assert_eq!(
            parse("red", "p_max=0.1 p_max=0.2").unwrap_err(),
            "red.p_max: given twice"
        );
    }
}
