//! Arguments from Python, checked one at a time. A wrong type or a value out of range gives one
//! line naming the argument, what is allowed and what was given, such as
//! `seed: must be an integer in 0..2^64-1, got -1`; the caller picks the exception
//! (ValueError, or ScenarioError for what builds an AQM).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

/// A one-line message for a bad argument.
pub type Checked<T> = Result<T, String>;

/// The longest excerpt of a value's repr quoted in a message.
const MAX_REPR_CHARS: usize = 60;

/// `repr(v)`, cut to [`MAX_REPR_CHARS`].
pub fn shown(v: &Bound<'_, PyAny>) -> String {
    let text = v
        .repr()
        .map_or_else(|_| "an unprintable value".to_string(), |r| r.to_string());
    if text.chars().count() > MAX_REPR_CHARS {
        let cut: String = text.chars().take(MAX_REPR_CHARS).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// An integer in `lo..=hi`; `range` is how the message writes that range (`0..2^64-1`).
/// Accepts Python ints and integer types with `__index__` (NumPy's); not bools or floats.
pub fn int(name: &str, v: &Bound<'_, PyAny>, lo: u64, hi: u64, range: &str) -> Checked<u64> {
    let value = if v.is_instance_of::<PyBool>() {
        None
    } else {
        v.extract::<i128>().ok()
    };
    match value {
        Some(i) if i >= i128::from(lo) && i <= i128::from(hi) => {
            Ok(u64::try_from(i).expect("checked against a u64 range"))
        }
        _ => Err(format!(
            "{name}: must be an integer in {range}, got {}",
            shown(v)
        )),
    }
}

/// A count as `usize` in `lo..=hi` (see [`int`]).
pub fn count(
    name: &str,
    v: &Bound<'_, PyAny>,
    lo: usize,
    hi: usize,
    range: &str,
) -> Checked<usize> {
    let n = int(name, v, lo as u64, hi as u64, range)?;
    Ok(usize::try_from(n).expect("checked against a usize range"))
}

/// A real number (int, float or anything with `__float__`, not a bool or a string); NaN and
/// infinities pass, for the caller's range check to name.
pub fn number(name: &str, v: &Bound<'_, PyAny>) -> Checked<f64> {
    let text = v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>();
    match v.extract::<f64>() {
        Ok(x) if !text && !v.is_instance_of::<PyBool>() => Ok(x),
        _ => Err(format!("{name}: must be a number, got {}", shown(v))),
    }
}

/// A number for which `ok` holds; `allowed` says which, as in `a number >= 0`.
pub fn number_where(
    name: &str,
    v: &Bound<'_, PyAny>,
    allowed: &str,
    ok: impl Fn(f64) -> bool,
) -> Checked<f64> {
    match number(name, v) {
        Ok(x) if ok(x) => Ok(x),
        _ => Err(format!("{name}: must be {allowed}, got {}", shown(v))),
    }
}

/// A sequence of numbers for each of which `ok` holds (a NumPy array will do; a string will
/// not); `allowed` says which, as in `finite numbers >= 0`.
pub fn numbers(
    name: &str,
    v: &Bound<'_, PyAny>,
    allowed: &str,
    ok: impl Fn(f64) -> bool,
) -> Checked<Vec<f64>> {
    let not_a_sequence = || format!("{name}: must be a sequence of {allowed}, got {}", shown(v));
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
        return Err(not_a_sequence());
    }
    let items = v.try_iter().map_err(|_| not_a_sequence())?;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item.map_err(|e| format!("{name}: cannot be read: {e}"))?;
        match number(name, &item) {
            Ok(x) if ok(x) => out.push(x),
            _ => {
                return Err(format!(
                    "{name}: must be {allowed}, got {} at index {i}",
                    shown(&item)
                ))
            }
        }
    }
    Ok(out)
}

/// True or False (also NumPy's bool).
pub fn flag(name: &str, v: &Bound<'_, PyAny>) -> Checked<bool> {
    v.extract::<bool>()
        .map_err(|_| format!("{name}: must be True or False, got {}", shown(v)))
}
