//! Scenario files: TOML read and validated once, overrides applied, canonical text written.

pub mod aqm_params;
pub mod canonical;
pub mod error;
pub mod model;
pub mod overrides;
pub mod parse;
pub mod reader;

pub use error::ScenarioError;
pub use model::*;

/// Parse scenario text, apply `key.path=value` overrides, validate, and resolve defaults.
pub fn load(text: &str, sets: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ScenarioError::new("", toml_error_line(&e)))?;
    for (key, value) in sets {
        overrides::apply(&mut table, key, value)?;
    }
    parse::scenario(&table)
}

/// A TOML syntax error as one line.
fn toml_error_line(e: &toml::de::Error) -> String {
    let msg = e.message().replace('\n', " ");
    match e.span() {
        Some(span) => format!("TOML syntax error at byte {}: {msg}", span.start),
        None => format!("TOML syntax error: {msg}"),
    }
}
