//! The measurement window `measure.window`: absolute seconds `[start_s, end_s]`, or a form
//! relative to the run ("all", "second_half", "last X s", "first X s", "last P%"), resolved
//! against `duration_s` to absolute seconds.

use super::error::ScenarioError;
use super::overrides::Overridden;
use super::reader::{as_f64, num, type_name};
use crate::time::s_to_ns;
use toml::Value;

/// The forms a window may take, as messages list them.
const FORMS: &str = r#"[start_s, end_s], "all", "second_half", "last X s", "first X s", "last P%""#;

/// The window `value` at `path` (absent: "all") over a run of `duration_s`, in seconds;
/// `overridden` tells the message where an absolute window that does not fit came from.
pub fn resolve(
    path: &str,
    value: Option<&Value>,
    duration_s: f64,
    overridden: &Overridden,
) -> Result<[f64; 2], ScenarioError> {
    let err = |m: String| ScenarioError::new(path, m);
    let (w, shown) = match value {
        None => ([0.0, duration_s], "\"all\"".to_string()),
        Some(Value::String(form)) => (
            relative(form, duration_s).map_err(err)?,
            format!("\"{form}\""),
        ),
        Some(Value::Array(items)) => {
            let w = absolute(items).map_err(err)?;
            if w[1] > duration_s {
                return Err(err(does_not_fit(w, path, duration_s, overridden)));
            }
            (w, format!("[{}, {}] s", num(w[0]), num(w[1])))
        }
        Some(v) => return Err(err(format!("must be one of {FORMS}, got {}", type_name(v)))),
    };
    if s_to_ns(w[1]) <= s_to_ns(w[0]) {
        return Err(err(format!("{shown} gives a window shorter than 1 ns")));
    }
    Ok(w)
}

/// `[start_s, end_s]` with 0 <= start < end.
fn absolute(items: &[Value]) -> Result<[f64; 2], String> {
    let numbers: Option<Vec<f64>> = items.iter().map(as_f64).collect();
    let [start, end] = numbers.as_deref().unwrap_or_default() else {
        return Err(format!(
            "an absolute window must be [start_s, end_s], two numbers of seconds; allowed: {FORMS}"
        ));
    };
    if !(start.is_finite() && end.is_finite() && 0.0 <= *start && start < end) {
        return Err(format!(
            "[{}, {}] s must have 0 <= start_s < end_s",
            num(*start),
            num(*end)
        ));
    }
    Ok([*start, *end])
}

/// Why an absolute window that ends after the run does not fit, and what to write instead.
fn does_not_fit(w: [f64; 2], path: &str, duration_s: f64, overridden: &Overridden) -> String {
    let origin = overridden.origin(path);
    let duration_origin = overridden.origin("duration_s");
    let duration_note = if duration_origin == origin {
        String::new()
    } else {
        format!(" ({duration_origin})")
    };
    // To the nanosecond, so that [0.6, 0.7] suggests 0.1 s rather than 0.09999999999999998.
    let len = ((w[1] - w[0]) * 1e9).round() / 1e9;
    let last = if len < duration_s {
        len
    } else {
        duration_s / 2.0
    };
    format!(
        "[{}, {}] s ({origin}) ends after duration_s = {}{duration_note}; use a window relative \
         to the run such as \"second_half\" or \"last {} s\"",
        num(w[0]),
        num(w[1]),
        num(duration_s),
        num(last)
    )
}

/// A positive amount written in a relative form (`None` when it is not a number).
fn amount(text: &str) -> Option<f64> {
    text.parse::<f64>().ok()
}

/// A relative form resolved over a run of `d` seconds.
fn relative(form: &str, d: f64) -> Result<[f64; 2], String> {
    let unknown = || format!("unknown form \"{form}\"; allowed: {FORMS}");
    match form {
        "all" => return Ok([0.0, d]),
        "second_half" => return Ok([d / 2.0, d]),
        _ => {}
    }
    let (first, rest) = match (form.strip_prefix("first "), form.strip_prefix("last ")) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => return Err(unknown()),
    };
    if let Some(x) = rest.strip_suffix(" s") {
        let x = amount(x).ok_or_else(unknown)?;
        if !(x > 0.0 && x <= d) {
            return Err(format!(
                "\"{form}\": X must be a number of seconds in (0, {}] (duration_s)",
                num(d)
            ));
        }
        return Ok(if first { [0.0, x] } else { [d - x, d] });
    }
    match rest.strip_suffix('%') {
        Some(p) if !first => {
            let p = amount(p).ok_or_else(unknown)?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(format!("\"{form}\": P must be a number in (0, 100]"));
            }
            Ok([d - d * p / 100.0, d])
        }
        _ => Err(unknown()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(value: &str, d: f64) -> Result<[f64; 2], String> {
        let v = super::super::overrides::parse_value("measure.window", value).unwrap();
        resolve("measure.window", Some(&v), d, &Overridden::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn relative_forms() {
        assert_eq!(window("all", 250.0), Ok([0.0, 250.0]));
        assert_eq!(window("second_half", 250.0), Ok([125.0, 250.0]));
        assert_eq!(window("\"last 50 s\"", 250.0), Ok([200.0, 250.0]));
        assert_eq!(window("\"first 2.5 s\"", 250.0), Ok([0.0, 2.5]));
        assert_eq!(window("\"last 50%\"", 250.0), Ok([125.0, 250.0]));
        assert_eq!(window("\"last 100%\"", 250.0), Ok([0.0, 250.0]));
        assert_eq!(window("\"last 250 s\"", 250.0), Ok([0.0, 250.0]));
        assert_eq!(
            resolve("measure.window", None, 8.0, &Overridden::default()),
            Ok([0.0, 8.0])
        );
    }

    #[test]
    fn bad_relative_forms() {
        let unknown = "measure.window: unknown form \"half\"; allowed: [start_s, end_s], \"all\", \
                       \"second_half\", \"last X s\", \"first X s\", \"last P%\"";
        assert_eq!(window("half", 250.0).unwrap_err(), unknown);
        for bad in [
            "\"last 50\"",
            "\"last  50 s\"",
            "\"first 50%\"",
            "\"last s\"",
            "\"Last 5 s\"",
        ] {
            assert!(
                window(bad, 250.0).unwrap_err().contains("unknown form"),
                "{bad}"
            );
        }
        assert_eq!(
            window("\"last 300 s\"", 250.0).unwrap_err(),
            "measure.window: \"last 300 s\": X must be a number of seconds in (0, 250] (duration_s)"
        );
        assert!(window("\"last -5 s\"", 250.0).is_err());
        assert!(window("\"last nan s\"", 250.0).is_err());
        assert_eq!(
            window("\"last 0%\"", 250.0).unwrap_err(),
            "measure.window: \"last 0%\": P must be a number in (0, 100]"
        );
        assert_eq!(
            window("\"last 1e-300 s\"", 250.0).unwrap_err(),
            "measure.window: \"last 1e-300 s\" gives a window shorter than 1 ns"
        );
        assert!(window("3", 250.0).unwrap_err().contains("got an integer"));
    }

    #[test]
    fn absolute_windows() {
        assert_eq!(window("[125, 250.0]", 250.0), Ok([125.0, 250.0]));
        assert!(window("[125]", 250.0).unwrap_err().contains("two numbers"));
        assert!(window("[125, \"x\"]", 250.0)
            .unwrap_err()
            .contains("two numbers"));
        assert_eq!(
            window("[20, 10]", 250.0).unwrap_err(),
            "measure.window: [20, 10] s must have 0 <= start_s < end_s"
        );
        assert_eq!(
            window("[125, 250]", 100.0).unwrap_err(),
            "measure.window: [125, 250] s (from the scenario text) ends after duration_s = 100; \
             use a window relative to the run such as \"second_half\" or \"last 50 s\""
        );
        let sets = [
            ("duration_s".to_string(), "200".to_string()),
            ("measure.window".to_string(), "[100, 300]".to_string()),
        ];
        let v = super::super::overrides::parse_value("measure.window", "[100, 300]").unwrap();
        let only_duration = Overridden::of(&sets[..1]);
        assert_eq!(
            resolve("measure.window", Some(&v), 200.0, &only_duration)
                .unwrap_err()
                .to_string(),
            "measure.window: [100, 300] s (from the scenario text) ends after duration_s = 200 \
             (from an override); use a window relative to the run such as \"second_half\" or \
             \"last 100 s\""
        );
        assert!(window("[0.6, 0.7]", 0.5)
            .unwrap_err()
            .ends_with("such as \"second_half\" or \"last 0.1 s\""));
        let both = Overridden::of(&sets);
        assert!(resolve("measure.window", Some(&v), 200.0, &both)
            .unwrap_err()
            .message
            .starts_with("[100, 300] s (from an override) ends after duration_s = 200;"));
    }
}
