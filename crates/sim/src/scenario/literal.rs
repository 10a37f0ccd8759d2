//! The value of an override: a TOML literal (`800`, `0.1`, `true`, `"red"`, `[0, 250]`), or a
//! bare word taken as a string (`red`). A number TOML cannot hold (an integer beyond 64 bits,
//! a float beyond the largest finite one) is an error naming the key, never a string or an
//! infinity.

use super::error::ScenarioError;
use toml::{Table, Value};

/// Keys whose values may exceed TOML's signed 64-bit integers and are then written as a string
/// of decimal digits (`seed = "18446744073709551615"`): a bare number too large for TOML is
/// taken as that string, as the key's reader expects.
const DIGIT_STRING_KEYS: &[&str] = &["seed"];

/// Parse `value`, the value an override gives `key`: a TOML literal, or a bare word taken as
/// a string. An integer literal (sign, digits, underscores, 0x/0o/0b) that does not fit in 64
/// bits and a float literal beyond the largest finite float are errors naming `key`.
pub fn parse_value(key: &str, value: &str) -> Result<Value, ScenarioError> {
    let doc = format!("v = {value}");
    let trimmed = value.trim();
    match doc.parse::<Table>() {
        Ok(mut t) => {
            let v = t
                .remove("v")
                .unwrap_or_else(|| Value::String(value.to_string()));
            if has_infinity(&v) {
                if let Some(message) = number_tokens(trimmed).find_map(out_of_range) {
                    return Err(ScenarioError::new(key, message));
                }
            }
            Ok(v)
        }
        Err(_) => {
            let single = !trimmed.is_empty() && trimmed.chars().all(is_token_char);
            if single && DIGIT_STRING_KEYS.contains(&key) && is_digits(trimmed, 10) {
                return Ok(Value::String(trimmed.to_string()));
            }
            if single || trimmed.starts_with('[') || trimmed.starts_with('{') {
                if let Some(message) = number_tokens(trimmed).find_map(out_of_range) {
                    return Err(ScenarioError::new(key, message));
                }
            }
            Ok(Value::String(value.to_string()))
        }
    }
}

/// Whether `v` is or holds an infinite float.
fn has_infinity(v: &Value) -> bool {
    match v {
        Value::Float(x) => x.is_infinite(),
        Value::Array(items) => items.iter().any(has_infinity),
        Value::Table(t) => t.values().any(has_infinity),
        _ => false,
    }
}

/// A character of a bare word or a number.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-' | '.')
}

/// The runs of token characters of `text` outside quoted strings (the numbers, bare keys and
/// words of a literal).
fn number_tokens(text: &str) -> impl Iterator<Item = &str> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '"' || c == '\'' {
            // Skip to the closing quote; a basic string ("...") escapes with a backslash.
            while let Some((_, d)) = chars.next() {
                if c == '"' && d == '\\' {
                    chars.next();
                } else if d == c {
                    break;
                }
            }
        } else if is_token_char(c) {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !is_token_char(d) {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            tokens.push(&text[i..end]);
        }
    }
    tokens.into_iter()
}

/// Whether `s` is digits of `radix` with single underscores between them, as TOML writes them.
fn is_digits(s: &str, radix: u32) -> bool {
    let ok = |c: char| c.is_digit(radix);
    s.starts_with(ok)
        && s.ends_with(ok)
        && !s.contains("__")
        && s.chars().all(|c| ok(c) || c == '_')
}

/// What is wrong with `token` when it is a number TOML cannot hold: an integer literal beyond
/// 64 bits, or a float literal beyond the largest finite float; None for anything else.
fn out_of_range(token: &str) -> Option<String> {
    let unsigned = token.strip_prefix(['+', '-']).unwrap_or(token);
    let clean = token.replace('_', "");
    let prefixed = [("0x", 16), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find_map(|(p, radix)| token.strip_prefix(p).map(|digits| (digits, radix)));
    let fits = match prefixed {
        Some((digits, radix)) if is_digits(digits, radix) => {
            Some(i64::from_str_radix(&digits.replace('_', ""), radix).is_ok())
        }
        Some(_) => None,
        None if is_digits(unsigned, 10) => Some(clean.parse::<i64>().is_ok()),
        None => None,
    };
    if let Some(fits) = fits {
        return (!fits).then(|| {
            format!("integer {token} does not fit in 64 bits (TOML integers are -2^63..2^63-1)")
        });
    }
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let float = is_digits(whole, 10)
        && (fraction.is_some() || exponent.is_some())
        && fraction.is_none_or(|f| is_digits(f, 10))
        && exponent.is_none_or(|e| is_digits(e, 10));
    (float && clean.parse::<f64>().is_ok_and(f64::is_infinite)).then(|| {
        format!(
            "float {token} is out of range: TOML floats are 64-bit, at most about 1.8e308 in \
             magnitude (write inf for an infinity)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(v: &str) -> Value {
        parse_value("k", v).unwrap()
    }

    fn err(v: &str) -> String {
        parse_value("queue.limit_pkts", v).unwrap_err().to_string()
    }

    #[test]
    fn literals_and_bare_words() {
        assert_eq!(value("800"), Value::Integer(800));
        assert_eq!(value("0.5"), Value::Float(0.5));
        assert_eq!(value("true"), Value::Boolean(true));
        assert_eq!(value("red"), Value::String("red".into()));
        assert_eq!(value("\"red\""), Value::String("red".into()));
        assert_eq!(value("-9223372036854775808"), Value::Integer(i64::MIN));
        assert_eq!(value("0x7fff_ffff_ffff_ffff"), Value::Integer(i64::MAX));
        assert_eq!(value("inf"), Value::Float(f64::INFINITY));
        assert_eq!(value("1e308"), Value::Float(1e308));
        // Words that hold big numbers are still words; quoted numbers are strings.
        assert_eq!(
            value("call 1180591620717411303424"),
            Value::String("call 1180591620717411303424".into())
        );
        assert_eq!(
            value("\"1180591620717411303424\""),
            Value::String("1180591620717411303424".into())
        );
        assert_eq!(value("1_2_"), Value::String("1_2_".into()));
        assert_eq!(value("0b102"), Value::String("0b102".into()));
    }

    #[test]
    fn integers_beyond_64_bits_are_refused() {
        assert_eq!(
            err("1180591620717411303424"),
            "queue.limit_pkts: integer 1180591620717411303424 does not fit in 64 bits (TOML \
             integers are -2^63..2^63-1)"
        );
        for big in [
            "9223372036854775808",
            "-9223372036854775809",
            "+1_000_000_000_000_000_000_000",
            "0x1_0000_0000_0000_0000",
            "0o7777777777777777777777",
            "0b11111111111111111111111111111111111111111111111111111111111111111",
            "[1, 1180591620717411303424]",
            "{ a = 99999999999999999999 }",
        ] {
            assert!(err(big).contains("does not fit in 64 bits"), "{big}");
        }
    }

    #[test]
    fn floats_beyond_the_largest_are_refused() {
        for big in [
            "1e999",
            "-1e999",
            "+1.5E+400",
            "[0.0, 1e999]",
            "[0.0, -1e999]",
        ] {
            let line = err(big);
            assert!(
                line.starts_with("queue.limit_pkts: float ") && line.contains("is out of range"),
                "{big}: {line}"
            );
        }
        assert!(err("-1e999").contains("float -1e999 is out of range"));
        // An infinity written as one is a literal like any other.
        assert_eq!(
            value("[-inf, 1.0]"),
            Value::Array(vec![Value::Float(f64::NEG_INFINITY), Value::Float(1.0)])
        );
    }

    #[test]
    fn seeds_beyond_signed_integers_stay_digit_strings() {
        assert_eq!(
            parse_value("seed", "18446744073709551616").unwrap(),
            Value::String("18446744073709551616".into())
        );
        assert!(parse_value("seed", "-9223372036854775809").is_err());
        assert!(parse_value("traffic.seed", "18446744073709551616").is_err());
    }
}
