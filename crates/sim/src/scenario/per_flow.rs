//! Values drawn per flow, as every table writes them: a number, `{ uniform = [lo, hi] }` or
//! `{ list = [..] }` (access delays, flow durations).

use super::error::ScenarioError;
use super::model::DelaySpec;
use super::reader::{as_f64, Range, Section};
use crate::time::MAX_TIME_MS;
use toml::Value;

/// A delay: a number, `{ uniform = [lo, hi] }` or `{ list = [...] }`; 1 ms when absent.
pub(super) fn delay_spec(s: &mut Section, key: &'static str) -> Result<DelaySpec, ScenarioError> {
    per_flow_spec(s, key, "ms", MAX_TIME_MS)
}

/// A value drawn per flow (a delay, a duration): a number of `unit` in [0, max], or
/// `{ uniform = [lo, hi] }`, or `{ list = [..] }`.
pub(super) fn per_flow_spec(
    s: &mut Section,
    key: &'static str,
    unit: &str,
    max: f64,
) -> Result<DelaySpec, ScenarioError> {
    let allowed = format!(
        "must be a number of {unit} in [0, {max}], {{ uniform = [lo, hi] }} or {{ list = [..] }}"
    );
    let allowed = allowed.as_str();
    let range = Range::Closed(0.0, max);
    match s.value(key) {
        None => Ok(DelaySpec::Constant(1.0)),
        Some(v) if as_f64(v).is_some() => {
            let x = as_f64(v).unwrap_or_default();
            if range.check(x).is_ok() {
                Ok(DelaySpec::Constant(x))
            } else {
                Err(s.error(key, allowed))
            }
        }
        Some(Value::Table(_)) => {
            let mut t = s.section(key)?;
            let spec = if t.has("uniform") {
                let lo_hi = t.f64_list("uniform", None, range)?;
                if lo_hi.len() != 2 || lo_hi[0] > lo_hi[1] {
                    return Err(t.error("uniform", "must be [lo, hi] with 0 <= lo <= hi"));
                }
                DelaySpec::Uniform(lo_hi[0], lo_hi[1])
            } else if t.has("list") {
                let items = t.f64_list("list", None, range)?;
                if items.is_empty() {
                    return Err(t.error("list", "must hold at least one delay"));
                }
                DelaySpec::List(items)
            } else {
                return Err(s.error(key, allowed));
            };
            t.finish()?;
            Ok(spec)
        }
        Some(_) => Err(s.error(key, allowed)),
    }
}
