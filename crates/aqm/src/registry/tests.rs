//! Every AQM's table of parameters against its struct: the names, the kinds of value, and the
//! allowed values as the text states them against what `validate` accepts.

use super::*;
use crate::params::{Limit, ParamDoc, Range};
use std::collections::BTreeSet;
use toml::{Table, Value};

/// The defaults of `P` as a TOML table, as the scenario reader sees them.
fn defaults<P: AqmParams>() -> Table {
    match Value::try_from(P::default()) {
        Ok(Value::Table(t)) => t,
        other => panic!("{} defaults are not a table: {other:?}", P::AQM),
    }
}

/// The parameters `table` gives, or the error of `P`'s deserialiser.
fn parse<P: AqmParams>(table: &Table) -> Result<P, toml::de::Error> {
    Value::Table(table.clone()).try_into()
}

/// Every AQM's name, table of parameters and serialised defaults.
struct Collect(Vec<(&'static str, &'static [ParamDoc], Table)>);

impl ParamsVisitor for Collect {
    fn visit<P: AqmParams>(&mut self) {
        self.0.push((P::AQM, P::PARAMS, defaults::<P>()));
    }
}

fn collect() -> Vec<(&'static str, &'static [ParamDoc], Table)> {
    let mut c = Collect(Vec::new());
    for_each(&mut c);
    c.0
}

#[test]
fn every_serialised_key_is_described_once() {
    for (aqm, docs, table) in collect() {
        let described: BTreeSet<&str> = docs.iter().map(|d| d.name).collect();
        assert_eq!(
            described.len(),
            docs.len(),
            "{aqm}: a name is described twice"
        );
        let keys: BTreeSet<&str> = table.keys().map(String::as_str).collect();
        assert_eq!(described, keys, "{aqm}: described names != serialised keys");
    }
}

#[test]
fn descriptions_are_complete_one_liners() {
    for (aqm, docs, _) in collect() {
        for p in docs {
            let allowed = p.range.to_string();
            assert!(
                !allowed.is_empty() && !p.help.is_empty(),
                "{aqm}.{}",
                p.name
            );
            assert!(!p.help.contains('\n') && !allowed.contains('\n'));
        }
    }
}

#[test]
fn aqm_names_are_distinct_keys() {
    let distinct: BTreeSet<&str> = names().iter().copied().collect();
    assert_eq!(distinct.len(), names().len(), "a name is listed twice");
    for name in distinct {
        let key = name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        assert!(key && title(name).is_some(), "{name}");
    }
}

/// Every limit a range names, through the ranges it wraps.
fn limits(range: &Range) -> Vec<Limit> {
    match *range {
        Range::Fraction(lo, hi) | Range::Number(lo, hi) => vec![lo.limit, hi.limit],
        Range::Above(lo) => vec![lo.limit],
        Range::Greater(name) => vec![Limit::Param(name)],
        Range::Between(lo, hi) => vec![lo, hi],
        Range::Auto(_, inner) | Range::Noted(inner, _) | Range::Joint(inner, _) => limits(inner),
        Range::Finite | Range::Count(_) | Range::CountIn(..) | Range::Flag | Range::Choice(_) => {
            vec![]
        }
    }
}

#[test]
fn each_range_fits_its_value_and_names_parameters_of_its_table() {
    for (aqm, docs, table) in collect() {
        for doc in docs {
            let fits = match (&table[doc.name], doc.range) {
                (Value::Boolean(_), Range::Flag) => true,
                (Value::String(s), Range::Choice(names)) => names.contains(&s.as_str()),
                (Value::Integer(_), Range::Count(_) | Range::CountIn(..)) => true,
                (Value::Float(_), r) => !matches!(
                    r,
                    Range::Flag | Range::Choice(_) | Range::Count(_) | Range::CountIn(..)
                ),
                _ => false,
            };
            assert!(
                fits,
                "{aqm}.{}: {} for {}",
                doc.name, doc.range, table[doc.name]
            );
            for limit in limits(&doc.range) {
                let (Limit::Param(name) | Limit::Mirror(name)) = limit else {
                    continue;
                };
                let named = docs.iter().find(|d| d.name == name);
                let named = named.unwrap_or_else(|| panic!("{aqm}.{}: no {name}", doc.name));
                assert!(
                    table[name].is_float(),
                    "{aqm}.{}: {name} is not a number",
                    doc.name
                );
                if let Limit::Mirror(_) = limit {
                    // The other side states the relation and checks it.
                    assert!(
                        limits(&named.range).contains(&Limit::Param(doc.name)),
                        "{aqm}.{name} does not check its relation with {}",
                        doc.name
                    );
                }
            }
        }
    }
}

/// Checks one AQM's choices and defaults.
struct ChoicesAndDefaults;

impl ParamsVisitor for ChoicesAndDefaults {
    fn visit<P: AqmParams>(&mut self) {
        assert_eq!(P::default().validate(), Ok(()), "{} defaults", P::AQM);
        for doc in P::PARAMS {
            let Range::Choice(names) = doc.range else {
                continue;
            };
            let mut table = defaults::<P>();
            for name in names {
                table.insert(doc.name.into(), Value::String(name.to_string()));
                assert!(
                    parse::<P>(&table).is_ok(),
                    "{}.{} = {name}",
                    P::AQM,
                    doc.name
                );
            }
            table.insert(doc.name.into(), Value::String("no such name".into()));
            assert!(parse::<P>(&table).is_err(), "{}.{}", P::AQM, doc.name);
        }
    }
}

#[test]
fn choices_list_exactly_the_names_read_and_defaults_are_valid() {
    for_each(&mut ChoicesAndDefaults);
}

/// A finite end of a range as its text states it.
#[derive(Debug)]
struct End {
    /// Its value (a named parameter's default value).
    at: f64,
    closed: bool,
    lower: bool,
    /// The parameter it names, if any.
    names: Option<String>,
}

/// One end's text: a number, `2^32-1`, or a parameter of `table`.
fn end(token: &str, closed: bool, lower: bool, table: &Table) -> End {
    let (at, names) = match token {
        "2^32-1" => (f64::from(u32::MAX), None),
        _ => match token.parse::<f64>() {
            Ok(x) => (x, None),
            Err(_) => {
                let x = table[token].as_float().expect("a number");
                (x, Some(token.to_string()))
            }
        },
    };
    End {
        at,
        closed,
        lower,
        names,
    }
}

/// The finite ends a range's text states, and whether it admits 0 for "automatic". Read from
/// the text alone, independently of how [`Range`] checks.
fn ends(text: &str, table: &Table) -> (Vec<End>, bool) {
    let (text, auto) = match text.split_once(") or ") {
        Some((head, rest)) if head.starts_with("0 (automatic") => (rest, true),
        _ => (text, false),
    };
    let text = text.split(", with ").next().unwrap();
    let text = text.strip_prefix("integer in ").unwrap_or(text);
    let ends = if let Some(rest) = text.strip_prefix(">= ") {
        vec![end(rest, true, true, table)]
    } else if let Some(rest) = text.strip_prefix("> ") {
        vec![end(rest, false, true, table)]
    } else if text == "finite" {
        vec![]
    } else {
        let (lo, hi) = text[1..text.len() - 1].split_once(", ").expect(text);
        vec![
            end(lo, text.starts_with('['), true, table),
            end(hi, text.ends_with(']'), false, table),
        ]
    };
    (ends, auto)
}

/// The next float above (`up`) or below `x`.
fn step(x: f64, up: bool) -> f64 {
    if x == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { bits + 1 } else { bits - 1 })
}

/// Checks, for one AQM, the values just outside and just inside each finite end its texts state.
struct OutsideAndInside;

impl ParamsVisitor for OutsideAndInside {
    fn visit<P: AqmParams>(&mut self) {
        let base = defaults::<P>();
        for doc in P::PARAMS {
            let whole = match base[doc.name] {
                Value::Float(_) => false,
                Value::Integer(_) => true,
                _ => continue,
            };
            let with = |x: f64| {
                let mut t = base.clone();
                let v = if whole {
                    Value::Integer(x as i64)
                } else {
                    Value::Float(x)
                };
                t.insert(doc.name.into(), v);
                t
            };
            let at = format!("{}.{} ({})", P::AQM, doc.name, doc.range);
            let other = |name: &str| {
                let named = P::PARAMS.iter().find(|d| d.name == name).expect(name);
                (base[name].as_float().expect(name), named.range)
            };
            let (ends, auto) = ends(&doc.range.to_string(), &base);
            assert!(
                !ends.is_empty() || doc.range == Range::Finite,
                "{at}: no ends read"
            );
            if auto {
                assert!(doc.range.allows(0.0, &other), "{at}: 0");
            }
            for e in ends {
                // Just outside: the next float (or integer) past a closed end, an open end itself.
                let away = !e.lower;
                let next = |x: f64, up: bool| match (whole, up) {
                    (true, true) => x + 1.0,
                    (true, false) => x - 1.0,
                    (false, up) => step(x, up),
                };
                let outside = if e.closed { next(e.at, away) } else { e.at };
                let inside = if e.closed { e.at } else { next(e.at, !away) };
                if !(auto && outside == 0.0) {
                    match parse::<P>(&with(outside)) {
                        // A whole number past the field's type: refused when read.
                        Err(_) => assert!(whole, "{at}: {outside} not read"),
                        Ok(p) => {
                            let err = p.validate().expect_err(&format!("{at}: {outside}"));
                            let named = [Some(doc.name), e.names.as_deref()];
                            assert!(named.contains(&Some(err.field.as_str())), "{at}: {err}");
                        }
                    }
                }
                // Just inside: this parameter's check accepts it, the others at their defaults
                // (which the value may put out of theirs: q_max just above q_min leaves no room
                // for q_target).
                assert!(parse::<P>(&with(inside)).is_ok(), "{at}: {inside} not read");
                assert!(doc.range.allows(inside, &other), "{at}: {inside}");
            }
            if !whole {
                for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                    let p = parse::<P>(&with(bad)).unwrap();
                    let err = p.validate().expect_err(&format!("{at}: {bad}"));
                    assert_eq!(err.field, doc.name, "{at}: {bad}");
                }
            }
        }
    }
}

#[test]
fn values_just_outside_each_stated_end_are_refused_and_just_inside_accepted() {
    for_each(&mut OutsideAndInside);
}
