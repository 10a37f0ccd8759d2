//! `--set key.path=value` overrides, applied to the parsed TOML before validation. The path
//! is read in `key_path.rs`, the value in `literal.rs`.

use super::error::ScenarioError;
use super::key_path::{self, Step};
pub use super::literal::parse_value;
use super::reader::type_name;
use toml::{Table, Value};

/// Set `key` to `value` (a TOML literal, see [`parse_value`]) inside `table`. The key is a
/// dotted path whose keys may index arrays (`topology.links[0].rate_mbps`,
/// `measure.cwnd_flows[1]`, `a[0][1]`); missing tables on the way are created, arrays never:
/// an index must name an element that exists.
pub fn apply(table: &mut Table, key: &str, value: &str) -> Result<(), ScenarioError> {
    let steps = key_path::parse(key)?;
    let value = parse_value(key, value)?;
    let (last, parents) = steps.split_last().expect("a parsed path has a key");
    let mut current = table;
    for (i, step) in parents.iter().enumerate() {
        let slot = if step.indices.is_empty() {
            current
                .entry(step.key.clone())
                .or_insert_with(|| Value::Table(Table::new()))
        } else {
            element(current, &steps[..=i])?
        };
        current = match slot {
            Value::Table(t) => t,
            _ => {
                return Err(ScenarioError::new(
                    key_path::render(&steps[..=i], None),
                    "is not a table, so it has no keys to set",
                ))
            }
        };
    }
    if last.indices.is_empty() {
        current.insert(last.key.clone(), value);
    } else {
        *element(current, &steps)? = value;
    }
    Ok(())
}

/// The element of an existing array that the last of `steps` names (a key with one or more
/// indices) inside `table`, the table its key lives in.
fn element<'a>(table: &'a mut Table, steps: &[Step]) -> Result<&'a mut Value, ScenarioError> {
    let step = steps.last().expect("a step with indices");
    let at = |k: usize| key_path::render(steps, Some(k));
    let Some(mut slot) = table.get_mut(&step.key) else {
        return Err(ScenarioError::new(
            at(1),
            format!(
                "{} is not set, and an override cannot create an array; set the whole array \
                 instead ({}=[...])",
                at(0),
                at(0)
            ),
        ));
    };
    for (k, index) in step.indices.iter().enumerate() {
        slot = match slot {
            Value::Array(items) => {
                let n = items.len();
                match items.get_mut(index.n) {
                    Some(item) => item,
                    None => return Err(ScenarioError::new(at(k + 1), out_of_range(n))),
                }
            }
            other => {
                return Err(ScenarioError::new(
                    at(k + 1),
                    format!(
                        "{} is {}, not an array; only an array takes an index",
                        at(k),
                        type_name(other)
                    ),
                ))
            }
        };
    }
    Ok(slot)
}

/// Why an index into an array of `n` elements is out of range, and what is allowed.
fn out_of_range(n: usize) -> String {
    let elements = match n {
        0 => "the array is empty".to_string(),
        1 => "the array has 1 element (0..0)".to_string(),
        n => format!("the array has {n} elements (0..{})", n - 1),
    };
    format!(
        "index out of range; {elements}; an override cannot add elements: set the whole array \
         to change its length"
    )
}

/// The dotted keys that overrides set, so that a message can say where a value came from.
#[derive(Clone, Debug, Default)]
pub struct Overridden(Vec<String>);

impl Overridden {
    /// The keys of `sets`.
    pub fn of(sets: &[(String, String)]) -> Self {
        Overridden(sets.iter().map(|(k, _)| k.clone()).collect())
    }

    /// Whether an override set the value at `path` (itself, a table or array that holds it,
    /// or an element or key inside it).
    pub fn covers(&self, path: &str) -> bool {
        let inside = |rest: &str| rest.is_empty() || rest.starts_with(['.', '[']);
        self.0.iter().any(|k| {
            path.strip_prefix(k.as_str()).is_some_and(inside)
                || k.strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('['))
        })
    }

    /// Where the value at `path` came from, as a message says it.
    pub fn origin(&self, path: &str) -> &'static str {
        if self.covers(path) {
            "from an override"
        } else {
            "from the scenario text"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_keys_are_created() {
        let mut t = Table::new();
        apply(&mut t, "queue.red.p_max", "0.2").unwrap();
        assert_eq!(t["queue"]["red"]["p_max"], Value::Float(0.2));
        let err = apply(&mut t, "queue.red.p_max.x", "1").unwrap_err();
        assert_eq!(err.path, "queue.red.p_max");
        let deep = vec!["a"; 100_000].join(".");
        let err = apply(&mut t, &deep, "1").unwrap_err();
        assert_eq!(err.path, format!("{}...", vec!["a"; 16].join(".")));
        assert!(t.get("a").is_none());
    }

    fn links() -> Table {
        "[[topology.links]]\nrate_mbps = 1.0\n[[topology.links]]\nrate_mbps = 2.0\n\
         [[topology.links]]\nrate_mbps = 3.0\n[measure]\ncwnd_flows = [0, 1]\n\
         grid = [[1, 2], [3]]\n"
            .parse()
            .unwrap()
    }

    fn err(t: &mut Table, key: &str, value: &str) -> String {
        let line = apply(t, key, value).unwrap_err().to_string();
        assert!(!line.contains('\n'));
        line
    }

    #[test]
    fn indices_reach_into_arrays() {
        let mut t = links();
        apply(&mut t, "topology.links[0].rate_mbps", "5").unwrap();
        apply(&mut t, "topology.links[2].queue.aqm", "red").unwrap();
        apply(&mut t, "measure.cwnd_flows[1]", "7").unwrap();
        apply(&mut t, "measure.grid[0][1]", "9").unwrap();
        apply(&mut t, "topology.links[1]", "{ rate_mbps = 4.0 }").unwrap();
        let links = t["topology"]["links"].as_array().unwrap();
        assert_eq!(links[0]["rate_mbps"], Value::Integer(5));
        assert_eq!(links[1]["rate_mbps"], Value::Float(4.0));
        assert_eq!(links[2]["rate_mbps"], Value::Float(3.0));
        assert_eq!(links[2]["queue"]["aqm"], Value::String("red".into()));
        assert_eq!(links.len(), 3);
        let flows = t["measure"]["cwnd_flows"].as_array().unwrap();
        assert_eq!(flows, &vec![Value::Integer(0), Value::Integer(7)]);
        assert_eq!(t["measure"]["grid"][0][1], Value::Integer(9));
    }

    #[test]
    fn bad_indices_name_the_path_and_the_range() {
        let mut t = links();
        let before = t.clone();
        assert_eq!(
            err(&mut t, "topology.links[5].rate_mbps", "1"),
            "topology.links[5]: index out of range; the array has 3 elements (0..2); an \
             override cannot add elements: set the whole array to change its length"
        );
        assert_eq!(
            err(&mut t, "measure.cwnd_flows[2]", "1"),
            "measure.cwnd_flows[2]: index out of range; the array has 2 elements (0..1); an \
             override cannot add elements: set the whole array to change its length"
        );
        assert!(err(&mut t, "measure.grid[1][1]", "1")
            .starts_with("measure.grid[1][1]: index out of range; the array has 1 element (0..0)"));
        assert!(err(&mut t, "measure.grid[0][99999999999999999999999]", "1")
            .starts_with("measure.grid[0][99999999999999999999999]: index out of range"));
        assert_eq!(
            err(&mut t, "traffic.groups[0].name", "x"),
            "traffic.groups[0]: traffic.groups is not set, and an override cannot create an \
             array; set the whole array instead (traffic.groups=[...])"
        );
        assert_eq!(
            err(&mut t, "measure[0]", "1"),
            "measure[0]: measure is a table, not an array; only an array takes an index"
        );
        assert_eq!(
            err(&mut t, "measure.cwnd_flows[0][0]", "1"),
            "measure.cwnd_flows[0][0]: measure.cwnd_flows[0] is an integer, not an array; only \
             an array takes an index"
        );
        assert_eq!(
            err(&mut t, "measure.cwnd_flows[0].x", "1"),
            "measure.cwnd_flows[0]: is not a table, so it has no keys to set"
        );
        assert!(err(&mut t, "topology.links[-1].rate_mbps", "1")
            .starts_with("topology.links[-1]: an index must be a whole number >= 0"));
        assert!(err(&mut t, "topology.links[0.rate_mbps", "1")
            .starts_with("topology.links[0.rate_mbps: unclosed bracket"));
        let mut empty: Table = "a = []".parse().unwrap();
        assert!(err(&mut empty, "a[0]", "1")
            .starts_with("a[0]: index out of range; the array is empty;"));
        // The key `traffic` was created on the way to the missing array; nothing else moved.
        t.remove("traffic");
        assert_eq!(t, before);
    }

    #[test]
    fn overridden_keys_cover_their_values() {
        let o = Overridden::of(&[
            ("measure".to_string(), "{}".to_string()),
            ("duration_s".to_string(), "10".to_string()),
        ]);
        assert!(o.covers("measure.window"));
        assert!(o.covers("duration_s"));
        assert!(!o.covers("duration"));
        assert!(!o.covers("measurement.window"));
        assert_eq!(o.origin("seed"), "from the scenario text");
        assert_eq!(o.origin("measure.window"), "from an override");
        let o = Overridden::of(&[
            ("measure.window[1]".to_string(), "20".to_string()),
            ("topology.links[0]".to_string(), "{}".to_string()),
        ]);
        assert!(o.covers("measure.window"));
        assert!(o.covers("topology.links[0].rate_mbps"));
        assert!(!o.covers("topology.links[1].rate_mbps"));
        assert!(!o.covers("measure"));
        assert!(!o.covers("measure.window_s"));
    }
}
