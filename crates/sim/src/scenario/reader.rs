//! Reads one TOML table of a scenario, key by key, with the key path at hand for error
//! messages; unknown keys are reported with the list of allowed ones.

use super::error::ScenarioError;
use toml::{Table, Value};

/// What a number must satisfy, and how to say so.
#[derive(Clone, Copy, Debug)]
pub enum Range {
    /// Any finite number.
    Any,
    /// Strictly positive.
    Positive,
    /// In [lo, hi].
    Closed(f64, f64),
    /// In (lo, hi].
    LeftOpen(f64, f64),
    /// In (lo, hi).
    Open(f64, f64),
}

impl Range {
    /// Ok when `x` is finite and in range, else what is allowed.
    pub fn check(self, x: f64) -> Result<(), String> {
        let ok = x.is_finite()
            && match self {
                Range::Any => true,
                Range::Positive => x > 0.0,
                Range::Closed(lo, hi) => lo <= x && x <= hi,
                Range::LeftOpen(lo, hi) => lo < x && x <= hi,
                Range::Open(lo, hi) => lo < x && x < hi,
            };
        if ok {
            return Ok(());
        }
        Err(match self {
            Range::Any => "must be a finite number".to_string(),
            Range::Positive => "must be a number > 0".to_string(),
            Range::Closed(lo, hi) => format!("must be a number in [{lo}, {hi}]"),
            Range::LeftOpen(lo, hi) => format!("must be a number in ({lo}, {hi}]"),
            Range::Open(lo, hi) => format!("must be a number in ({lo}, {hi})"),
        })
    }
}

/// A table being read, with its dotted path and the keys read so far.
pub struct Section<'a> {
    path: String,
    table: Option<&'a Table>,
    allowed: Vec<&'static str>,
}

/// How a value's type is named in messages ("an integer", "a string", ...).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

impl<'a> Section<'a> {
    /// The top-level table of a scenario.
    pub fn root(table: &'a Table) -> Self {
        Section {
            path: String::new(),
            table: Some(table),
            allowed: Vec::new(),
        }
    }

    /// A table read on its own at `path` (absent: every key takes its default).
    pub fn detached(path: &str, table: Option<&'a Table>) -> Self {
        Section {
            path: path.to_string(),
            table,
            allowed: Vec::new(),
        }
    }

    /// Dotted path of `key` inside this section.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// An error at `key` of this section.
    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.path_of(key), message)
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.allowed.push(key);
        self.table.and_then(|t| t.get(key))
    }

    /// Whether `key` is present (and marks it as allowed).
    pub fn has(&mut self, key: &'static str) -> bool {
        self.get(key).is_some()
    }

    /// A sub-table; a missing one reads as empty (every key then takes its default).
    pub fn section(&mut self, key: &'static str) -> Result<Section<'a>, ScenarioError> {
        let path = self.path_of(key);
        match self.get(key) {
            None => Ok(Section {
                path,
                table: None,
                allowed: Vec::new(),
            }),
            Some(Value::Table(t)) => Ok(Section {
                path,
                table: Some(t),
                allowed: Vec::new(),
            }),
            Some(v) => Err(ScenarioError::new(
                path,
                format!("must be a table, got {}", type_name(v)),
            )),
        }
    }

    /// A raw value, if present.
    pub fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.get(key)
    }

    /// A number checked against `range`; `default` when absent (required when `None`).
    pub fn f64(
        &mut self,
        key: &'static str,
        default: Option<f64>,
        range: Range,
    ) -> Result<f64, ScenarioError> {
        let x = match self.get(key) {
            None => default.ok_or_else(|| self.error(key, "is required"))?,
            Some(v) => as_f64(v).ok_or_else(|| {
                self.error(key, format!("must be a number, got {}", type_name(v)))
            })?,
        };
        range.check(x).map_err(|m| self.error(key, m))?;
        Ok(x)
    }

    /// An integer in [lo, hi]; `default` when absent (required when `None`).
    pub fn int(
        &mut self,
        key: &'static str,
        default: Option<i64>,
        lo: i64,
        hi: i64,
    ) -> Result<i64, ScenarioError> {
        let x = match self.get(key) {
            None => default.ok_or_else(|| self.error(key, "is required"))?,
            Some(Value::Integer(i)) => *i,
            Some(v) => {
                return Err(self.error(
                    key,
                    format!("must be an integer in [{lo}, {hi}], got {}", type_name(v)),
                ))
            }
        };
        if x < lo || x > hi {
            return Err(self.error(key, format!("must be an integer in [{lo}, {hi}], got {x}")));
        }
        Ok(x)
    }

    /// A boolean; `default` when absent.
    pub fn bool(&mut self, key: &'static str, default: bool) -> Result<bool, ScenarioError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(v) => Err(self.error(key, format!("must be true or false, got {}", type_name(v)))),
        }
    }

    /// A free string; `default` when absent.
    pub fn string(&mut self, key: &'static str, default: &str) -> Result<String, ScenarioError> {
        match self.get(key) {
            None => Ok(default.to_string()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(self.error(key, format!("must be a string, got {}", type_name(v)))),
        }
    }

    /// One of `choices`; `default` when absent (required when `None`).
    pub fn choice(
        &mut self,
        key: &'static str,
        choices: &[&'static str],
        default: Option<&'static str>,
    ) -> Result<&'static str, ScenarioError> {
        let allowed = choices.join(", ");
        match self.get(key) {
            None => {
                default.ok_or_else(|| self.error(key, format!("is required; allowed: {allowed}")))
            }
            Some(Value::String(s)) => choices.iter().copied().find(|c| c == s).ok_or_else(|| {
                self.error(key, format!("unknown value \"{s}\"; allowed: {allowed}"))
            }),
            Some(v) => Err(self.error(
                key,
                format!("must be a string, got {}; allowed: {allowed}", type_name(v)),
            )),
        }
    }

    /// A list of numbers, each checked against `range`; `default` when absent.
    pub fn f64_list(
        &mut self,
        key: &'static str,
        default: Option<Vec<f64>>,
        range: Range,
    ) -> Result<Vec<f64>, ScenarioError> {
        let v = match self.get(key) {
            None => return default.ok_or_else(|| self.error(key, "is required")),
            Some(v) => v,
        };
        let Value::Array(items) = v else {
            return Err(self.error(
                key,
                format!("must be an array of numbers, got {}", type_name(v)),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let path = format!("{}[{i}]", self.path_of(key));
                let x = as_f64(item).ok_or_else(|| {
                    ScenarioError::new(&path, format!("must be a number, got {}", type_name(item)))
                })?;
                range.check(x).map_err(|m| ScenarioError::new(&path, m))?;
                Ok(x)
            })
            .collect()
    }

    /// Report keys that were never asked for.
    pub fn finish(self) -> Result<(), ScenarioError> {
        let Some(table) = self.table else {
            return Ok(());
        };
        if let Some(key) = table.keys().find(|k| !self.allowed.contains(&k.as_str())) {
            let mut allowed = self.allowed.clone();
            allowed.sort_unstable();
            allowed.dedup();
            return Err(ScenarioError::new(
                self.path_of(key),
                format!("unknown key; allowed here: {}", allowed.join(", ")),
            ));
        }
        Ok(())
    }
}

/// A TOML number as f64 (integers are accepted where a float is expected).
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Float(x) => Some(*x),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// A number for a message: plain decimals unless that would be long (1e-300, not 0.000…1).
pub fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-6..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A table of sub-items read from an array of tables, each with its own path.
pub fn array_of_tables<'a>(
    section: &mut Section<'a>,
    key: &'static str,
) -> Result<Vec<Section<'a>>, ScenarioError> {
    let path = section.path_of(key);
    let Some(v) = section.value(key) else {
        return Err(ScenarioError::new(path, "is required"));
    };
    let Value::Array(items) = v else {
        return Err(ScenarioError::new(path, "must be an array of tables"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Table(t) => Ok(Section {
                path: format!("{path}[{i}]"),
                table: Some(t),
                allowed: Vec::new(),
            }),
            other => Err(ScenarioError::new(
                format!("{path}[{i}]"),
                format!("must be a table, got {}", type_name(other)),
            )),
        })
        .collect()
}
