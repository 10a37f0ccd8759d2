//! Scenario files: TOML read and validated once, overrides applied, canonical text written.

pub mod aqm_params;
pub mod canonical;
pub mod error;
pub mod key_path;
pub mod literal;
pub mod measure;
pub mod model;
pub mod overrides;
pub mod parse;
pub mod parse_link_rate;
pub mod parse_queue;
pub mod parse_schedule;
pub mod parse_source;
pub mod parse_tcp;
pub mod parse_topology;
pub mod parse_traffic;
pub mod per_flow;
pub mod reader;
pub mod window;

pub use error::ScenarioError;
pub use model::*;

/// Parse scenario text, apply `key.path=value` overrides, validate, and resolve defaults.
pub fn load(text: &str, sets: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let mut table = parse_table(text).map_err(|message| ScenarioError::new("", message))?;
    for (key, value) in sets {
        overrides::apply(&mut table, key, value)?;
    }
    parse::scenario(&table, &overrides::Overridden::of(sets))
}

/// Check a scenario built in code as if it were read from text: every key in range, every
/// traced flow part of the run.
pub fn validate(sc: &Scenario) -> Result<(), ScenarioError> {
    load(&canonical::to_toml(sc), &[]).map(|_| ())
}

/// Why `text` is not TOML that the scenario reader accepts, as one line with its line and
/// column, or None when it is. It parses the text and keeps nothing of it: a quick check
/// that needs no Python TOML parser on `aqmlab run`'s path (docs/architecture.md, "Start-up").
pub fn toml_syntax_error(text: &str) -> Option<String> {
    parse_table(text).err()
}

/// The string at the top-level `key` of TOML text; None when the text is not TOML or that key
/// is missing or not a string.
pub fn top_level_string(text: &str, key: &str) -> Option<String> {
    match parse_table(text).ok()?.remove(key)? {
        toml::Value::String(s) => Some(s),
        _ => None,
    }
}

/// The TOML table of `text`, or its syntax error as one line (`toml_error_line`): how every
/// scenario text is parsed.
fn parse_table(text: &str) -> Result<toml::Table, String> {
    text.parse()
        .map_err(|e: toml::de::Error| toml_error_line(&e, text))
}

/// A TOML syntax error as one line, with its 1-based line and column in `text`.
fn toml_error_line(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let (line, column) = line_and_column(text, span.start);
            format!("TOML syntax error at line {line}, column {column}: {msg}")
        }
        None => format!("TOML syntax error: {msg}"),
    }
}

/// The 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_checks_read_what_load_reads() {
        assert_eq!(toml_syntax_error("a = 1\n[b]\nc = 'x'\n"), None);
        let error = toml_syntax_error("a = 1\nb = = 2\n").expect("a syntax error");
        assert!(
            error.starts_with("TOML syntax error at line 2, column 5: "),
            "{error}"
        );
        assert!(toml_syntax_error("a = 99999999999999999999").is_some());
        assert!(toml_syntax_error(&format!("a = {}", "[".repeat(100_000))).is_some());
        let text = "scenario = 'base.toml'\n[grid]\nn = 1\n";
        assert_eq!(
            top_level_string(text, "scenario").as_deref(),
            Some("base.toml")
        );
        assert_eq!(top_level_string("scenario = 3", "scenario"), None);
        assert_eq!(top_level_string("[grid]\nscenario = 'x'", "scenario"), None);
        assert_eq!(top_level_string("scenario = = 'x'", "scenario"), None);
    }

    #[test]
    fn positions_are_one_based_lines_and_characters() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_and_column(text, 0), (1, 1));
        assert_eq!(line_and_column(text, 6), (2, 1));
        assert_eq!(line_and_column(text, 9), (2, 3));
        assert_eq!(line_and_column(text, 999), (3, 1));
        let e = load("duration_s = 1\n\n[traffic\nkind = 1\n", &[]).unwrap_err();
        assert!(
            e.message
                .starts_with("TOML syntax error at line 3, column 9: "),
            "{e}"
        );
        assert_eq!(e.path, "");
    }
}
