//! The key path of an override: dotted keys, each optionally followed by indices into an
//! array (`queue.red.p_max`, `topology.links[0].rate_mbps`, `a[0][1]`).

use super::error::ScenarioError;

/// The most keys an override path may hold (scenario keys hold at most three; indices do not
/// count).
pub const MAX_KEY_DEPTH: usize = 16;

/// One index of a path: its value (saturated at `usize::MAX`, which no array reaches) and the
/// digits as written, for messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Index {
    /// The element it names, counted from 0.
    pub n: usize,
    /// The digits as written.
    pub text: String,
}

/// One key of a path and the array indices that follow it (`links[0]`: key `links`, index 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The key.
    pub key: String,
    /// The indices after it, outermost first.
    pub indices: Vec<Index>,
}

/// The text of `steps`, with the first `last_indices` indices of the last step (all of them
/// when `None`): `topology.links[0]`.
pub fn render(steps: &[Step], last_indices: Option<usize>) -> String {
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(&step.key);
        let take = match last_indices {
            Some(k) if i + 1 == steps.len() => k.min(step.indices.len()),
            _ => step.indices.len(),
        };
        for index in &step.indices[..take] {
            out.push('[');
            out.push_str(&index.text);
            out.push(']');
        }
    }
    out
}

/// What an index must be, for messages.
const INDEX_RULE: &str = "an index must be a whole number >= 0 (elements count from 0)";

/// Parse an override's key path into its steps. Errors name the path and what is allowed: an
/// empty key, more than [`MAX_KEY_DEPTH`] keys, an index that is not a whole number >= 0, an
/// unclosed bracket, or anything but `.`, `[` or the end after a `]`.
pub fn parse(path: &str) -> Result<Vec<Step>, ScenarioError> {
    let dotted = || {
        ScenarioError::new(
            path,
            "override key must be a dotted path such as queue.red.p_max or \
             topology.links[0].rate_mbps",
        )
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut rest = path;
    loop {
        if steps.len() == MAX_KEY_DEPTH {
            return Err(ScenarioError::new(
                format!("{}...", render(&steps, None)),
                format!("override key must be a dotted path of at most {MAX_KEY_DEPTH} keys"),
            ));
        }
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let key = &rest[..end];
        if key.is_empty() {
            return Err(dotted());
        }
        if key.contains(']') {
            return Err(ScenarioError::new(
                path,
                format!("\"]\" without \"[\" in \"{key}\"; {BRACKET_RULE}"),
            ));
        }
        steps.push(Step {
            key: key.to_string(),
            indices: Vec::new(),
        });
        rest = &rest[end..];
        while let Some(inside) = rest.strip_prefix('[') {
            let Some(close) = inside.find(']') else {
                return Err(ScenarioError::new(
                    path,
                    format!("unclosed bracket; {BRACKET_RULE}"),
                ));
            };
            let text = &inside[..close];
            let step = steps.last_mut().expect("a step was pushed");
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                let at = format!("{}[{text}]", render(&steps, None));
                let got = if text.starts_with('-') {
                    text.to_string()
                } else {
                    format!("\"{text}\"")
                };
                return Err(ScenarioError::new(at, format!("{INDEX_RULE}, got {got}")));
            }
            step.indices.push(Index {
                n: text.parse().unwrap_or(usize::MAX),
                text: text.to_string(),
            });
            rest = &inside[close + 1..];
        }
        match rest.strip_prefix('.') {
            Some(next) => rest = next,
            None if rest.is_empty() => return Ok(steps),
            None => {
                return Err(ScenarioError::new(
                    path,
                    format!(
                        "\"{rest}\" follows an index; after \"]\" comes \".\", another \
                         [index] or the end of the key"
                    ),
                ))
            }
        }
    }
}

/// How an index is written, for messages.
const BRACKET_RULE: &str =
    "an index is written key[N] (N a whole number >= 0), as in topology.links[0]";

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(path: &str) -> Vec<(String, Vec<usize>)> {
        parse(path)
            .unwrap()
            .into_iter()
            .map(|s| (s.key, s.indices.into_iter().map(|i| i.n).collect()))
            .collect()
    }

    fn err(path: &str) -> String {
        parse(path).unwrap_err().to_string()
    }

    #[test]
    fn keys_and_indices() {
        assert_eq!(
            keys("queue.red.p_max"),
            vec![
                ("queue".into(), vec![]),
                ("red".into(), vec![]),
                ("p_max".into(), vec![])
            ]
        );
        assert_eq!(
            keys("topology.links[2].rate_mbps"),
            vec![
                ("topology".into(), vec![]),
                ("links".into(), vec![2]),
                ("rate_mbps".into(), vec![])
            ]
        );
        assert_eq!(keys("a[0][1]"), vec![("a".into(), vec![0, 1])]);
        assert_eq!(keys("a[99999999999999999999999]")[0].1, vec![usize::MAX]);
        let steps = parse("a[0][007].b").unwrap();
        assert_eq!(render(&steps, None), "a[0][007].b");
        assert_eq!(render(&steps[..1], Some(1)), "a[0]");
    }

    #[test]
    fn bad_paths_say_what_is_allowed() {
        assert_eq!(
            err("topology.links[-1].rate_mbps"),
            "topology.links[-1]: an index must be a whole number >= 0 (elements count from 0), \
             got -1"
        );
        assert_eq!(
            err("topology.links[x]"),
            "topology.links[x]: an index must be a whole number >= 0 (elements count from 0), \
             got \"x\""
        );
        assert!(err("a[]").starts_with("a[]: an index must be"));
        assert!(err("a[1.5]").starts_with("a[1.5]: an index must be"));
        assert_eq!(
            err("topology.links[0.rate_mbps"),
            "topology.links[0.rate_mbps: unclosed bracket; an index is written key[N] (N a \
             whole number >= 0), as in topology.links[0]"
        );
        assert!(err("a[0]b").starts_with("a[0]b: \"b\" follows an index"));
        assert!(err("a]").starts_with("a]: \"]\" without \"[\""));
        for bad in ["", ".a", "a.", "a..b", "[0]", "a.[0]"] {
            assert!(
                err(bad).contains("override key must be a dotted path"),
                "{bad}: {}",
                err(bad)
            );
        }
    }

    #[test]
    fn at_most_sixteen_keys() {
        let sixteen = vec!["a[0]"; 16].join(".");
        assert_eq!(parse(&sixteen).unwrap().len(), 16);
        let deep = vec!["a[0]"; 100_000].join(".");
        assert_eq!(parse(&deep).unwrap_err().path, format!("{sixteen}..."));
    }
}
