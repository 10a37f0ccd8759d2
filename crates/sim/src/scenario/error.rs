//! The one kind of error a scenario can have: a key path and what is allowed there.

use std::fmt;

/// A problem with a scenario, reported as one line: `key.path: what is allowed`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted key path, for example `queue.red.p_max` (empty for the file as a whole).
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
