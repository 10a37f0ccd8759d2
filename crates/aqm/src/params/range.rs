//! The values a parameter allows, stated once, in the manner of ns-3's attribute checkers: a
//! [`Range`] renders the text `aqmlab list --params` shows (its `Display`), decides whether a
//! value is allowed and words the one-line error for one that is not.

use std::fmt;

/// One end of an interval: a number, or the value of another parameter of the same table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// A number.
    Num(f64),
    /// The value of the parameter of this name; this parameter's check compares with it.
    Param(&'static str),
    /// The value of the parameter of this name, whose own range names this parameter and
    /// checks the relation between the two. Shown here so that both sides state it; this
    /// parameter checks only what the other's numeric bound on the same side implies (b in
    /// [0, a] implies a >= 0).
    Mirror(&'static str),
}

/// An end of an interval and whether the interval contains it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// Where the interval ends.
    pub limit: Limit,
    /// Whether the end belongs to the interval (`[`, `]`) or not (`(`, `)`).
    pub closed: bool,
}

impl Bound {
    /// The number `x`, included.
    pub const fn closed(x: f64) -> Self {
        Bound {
            limit: Limit::Num(x),
            closed: true,
        }
    }

    /// The number `x`, excluded.
    pub const fn open(x: f64) -> Self {
        Bound {
            limit: Limit::Num(x),
            closed: false,
        }
    }

    /// `limit`, included or not.
    pub const fn at(limit: Limit, closed: bool) -> Self {
        Bound { limit, closed }
    }

    /// Whether `x` lies on the allowed side of this lower end; an end that names another
    /// parameter counts only with `relations`.
    fn admits_above(self, x: f64, other: &Other, relations: bool) -> bool {
        let lo = match self.limit {
            Limit::Num(lo) => lo,
            Limit::Param(_) if !relations => return true,
            Limit::Param(name) => other(name).0,
            Limit::Mirror(name) => {
                return other(name)
                    .1
                    .numeric_ends()
                    .0
                    .is_none_or(|b| b.admits_above(x, other, relations))
            }
        };
        if self.closed {
            x >= lo
        } else {
            x > lo
        }
    }

    /// Whether `x` lies on the allowed side of this upper end; an end that names another
    /// parameter counts only with `relations`.
    fn admits_below(self, x: f64, other: &Other, relations: bool) -> bool {
        let hi = match self.limit {
            Limit::Num(hi) => hi,
            Limit::Param(_) if !relations => return true,
            Limit::Param(name) => other(name).0,
            Limit::Mirror(name) => {
                return other(name)
                    .1
                    .numeric_ends()
                    .1
                    .is_none_or(|b| b.admits_below(x, other, relations))
            }
        };
        if self.closed {
            x <= hi
        } else {
            x < hi
        }
    }
}

/// The value and the range of the parameter of a given name in the same table, for the bounds
/// that name another parameter.
pub type Other<'a> = dyn Fn(&str) -> (f64, Range) + 'a;

/// The values one parameter allows. Every numeric range allows finite numbers only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A fraction, a probability or a weight, inside [0, 1]: `(0, 1]`, `[0, p_max_initial]`.
    /// Error: `must be in (0, 1]`.
    Fraction(Bound, Bound),
    /// A number between two ends: `[0.001, 1e9]`, `[0, a]`. Error: `must be a number in
    /// [0.001, 1e9]`.
    Number(Bound, Bound),
    /// A number above a numeric end: `> 0`, `>= 1`. Error: `must be a number > 0`.
    Above(Bound),
    /// A number greater than another parameter: `> q_min_pkts`. Error: `must be greater than
    /// q_min_pkts`.
    Greater(&'static str),
    /// A number strictly between two other parameters: `(q_min_pkts, q_max_pkts)`. Error:
    /// `must be in (q_min_pkts, q_max_pkts) = (0, 1000)`, with their values.
    Between(Limit, Limit),
    /// Any finite number: `finite`. Error: `must be a finite number`.
    Finite,
    /// A whole number from this one to 2^32 − 1 (a `u32`): `integer in [1, 2^32-1]`. Error:
    /// `must be at least 1`.
    Count(u32),
    /// A whole number between two ends: `integer in [1, 65536]`. Error: `must be an integer in
    /// [1, 65536]`.
    CountIn(u32, u32),
    /// `true` or `false`.
    Flag,
    /// One of these names: `none, uniform, wait`.
    Choice(&'static [&'static str]),
    /// 0, meaning "set automatically", or a value of the range; with the name of the parameter
    /// that is automatic together with this one, if any: `0 (automatic) or (0, 1]`. Error:
    /// `must be 0 (automatic) or in (0, 1]`.
    Auto(Option<&'static str>, &'static Range),
    /// The range, with a remark the error adds in brackets: `[0.000001, 1e9]`, error `must
    /// be a number in [0.000001, 1e9] (at least 1 ns)`.
    Noted(&'static Range, &'static str),
    /// The range, and after a comma a condition on this parameter and others (the link's
    /// rate and buffer) that the algorithm checks when it is built: `> 0, with C·T_target in
    /// (0, limit_pkts)`. Error: the range's.
    Joint(&'static Range, &'static str),
}

/// A fraction, `[0, 1]`.
pub const FRACTION: Range = Range::Fraction(Bound::closed(0.0), Bound::closed(1.0));

/// A fraction above 0: a probability, a weight or a step factor, `(0, 1]`.
pub const POSITIVE_FRACTION: Range = Range::Fraction(Bound::open(0.0), Bound::closed(1.0));

/// A number above 0, `> 0`.
pub const POSITIVE: Range = Range::Above(Bound::open(0.0));

/// A number at least 0, `>= 0`.
pub const NON_NEGATIVE: Range = Range::Above(Bound::closed(0.0));

/// Times in milliseconds from 1 ns to 10⁹ ms (about 11.6 days; small multiples of it, such as
/// CoDel's 16·interval, still fit the nanosecond clock).
pub const DURATION_MS: Range = Range::Noted(
    &Range::Number(Bound::closed(1e-6), Bound::closed(1e9)),
    "at least 1 ns",
);

impl Range {
    /// Whether the number `x` is allowed; `other` gives the parameters a bound names.
    pub fn allows(&self, x: f64, other: &Other) -> bool {
        self.admits(x, other, true)
    }

    /// Whether the number `x` is allowed as far as this parameter alone decides: its
    /// numeric ends, leaving out its relations with other parameters.
    pub(crate) fn allows_alone(&self, x: f64, other: &Other) -> bool {
        self.admits(x, other, false)
    }

    fn admits(&self, x: f64, other: &Other, relations: bool) -> bool {
        if !x.is_finite() {
            return false;
        }
        match *self {
            Range::Fraction(lo, hi) | Range::Number(lo, hi) => {
                lo.admits_above(x, other, relations) && hi.admits_below(x, other, relations)
            }
            Range::Above(lo) => lo.admits_above(x, other, relations),
            Range::Greater(name) => !relations || x > other(name).0,
            Range::Between(lo, hi) => {
                Bound::at(lo, false).admits_above(x, other, relations)
                    && Bound::at(hi, false).admits_below(x, other, relations)
            }
            Range::Finite => true,
            Range::Count(lo) => x >= f64::from(lo),
            Range::CountIn(lo, hi) => (f64::from(lo)..=f64::from(hi)).contains(&x),
            Range::Flag | Range::Choice(_) => false,
            Range::Auto(_, range) => x == 0.0 || range.admits(x, other, relations),
            Range::Noted(range, _) | Range::Joint(range, _) => range.admits(x, other, relations),
        }
    }

    /// The error for a value outside the range: `must be …`.
    pub fn message(&self, other: &Other) -> String {
        format!("must be {}", self.requirement(other))
    }

    /// What the error says after "must be".
    fn requirement(&self, other: &Other) -> String {
        match *self {
            Range::Fraction(..) => format!("in {self}"),
            Range::Number(..) => format!("a number in {self}"),
            Range::Above(..) => format!("a number {self}"),
            Range::Greater(name) => format!("greater than {name}"),
            Range::Between(lo, hi) => {
                let value = |limit| match limit {
                    Limit::Num(x) => x,
                    Limit::Param(name) | Limit::Mirror(name) => other(name).0,
                };
                format!("in {self} = ({}, {})", value(lo), value(hi))
            }
            Range::Finite => "a finite number".to_string(),
            Range::Count(lo) => format!("at least {lo}"),
            Range::CountIn(lo, hi) => format!("an integer in [{lo}, {hi}]"),
            Range::Flag => "true or false".to_string(),
            Range::Choice(names) => format!("one of {}", names.join(", ")),
            Range::Auto(_, range) => format!("0 (automatic) or {}", range.requirement(other)),
            Range::Noted(range, note) => format!("{} ({note})", range.requirement(other)),
            Range::Joint(range, _) => range.requirement(other),
        }
    }

    /// The numeric lower and upper ends, where the range has them (a [`Limit::Mirror`] of
    /// this parameter checks against them).
    fn numeric_ends(&self) -> (Option<Bound>, Option<Bound>) {
        let numeric = |b: Bound| matches!(b.limit, Limit::Num(_)).then_some(b);
        match *self {
            Range::Fraction(lo, hi) | Range::Number(lo, hi) => (numeric(lo), numeric(hi)),
            Range::Above(lo) => (numeric(lo), None),
            Range::Count(lo) => (Some(Bound::closed(f64::from(lo))), None),
            Range::CountIn(lo, hi) => (
                Some(Bound::closed(f64::from(lo))),
                Some(Bound::closed(f64::from(hi))),
            ),
            Range::Noted(range, _) | Range::Joint(range, _) => range.numeric_ends(),
            Range::Greater(_)
            | Range::Between(..)
            | Range::Finite
            | Range::Flag
            | Range::Choice(_)
            | Range::Auto(..) => (None, None),
        }
    }
}

/// A number as the tables write it: plainly from 10⁻⁶ to below 10⁶ (`0.000001`, `0.005`),
/// with an exponent outside (`1e9`, `1e-9`, `-1e6`).
struct Num(f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x == 0.0 || (1e-6..1e6).contains(&x.abs()) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Limit::Num(x) => Num(x).fmt(f),
            Limit::Param(name) | Limit::Mirror(name) => f.write_str(name),
        }
    }
}

/// The interval between `lo` and `hi`: `[0, 1)`, `(q_min_pkts, q_max_pkts)`.
fn interval(f: &mut fmt::Formatter<'_>, lo: Bound, hi: Bound) -> fmt::Result {
    let open = if lo.closed { '[' } else { '(' };
    let close = if hi.closed { ']' } else { ')' };
    write!(f, "{open}{}, {}{close}", lo.limit, hi.limit)
}

impl fmt::Display for Range {
    /// The allowed values as `aqmlab list --params` shows them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Range::Fraction(lo, hi) | Range::Number(lo, hi) => interval(f, lo, hi),
            Range::Above(lo) => {
                let op = if lo.closed { ">=" } else { ">" };
                write!(f, "{op} {}", lo.limit)
            }
            Range::Greater(name) => write!(f, "> {name}"),
            Range::Between(lo, hi) => interval(f, Bound::at(lo, false), Bound::at(hi, false)),
            Range::Finite => f.write_str("finite"),
            Range::Count(lo) => write!(f, "integer in [{lo}, 2^32-1]"),
            Range::CountIn(lo, hi) => write!(f, "integer in [{lo}, {hi}]"),
            Range::Flag => f.write_str("true, false"),
            Range::Choice(names) => f.write_str(&names.join(", ")),
            Range::Auto(with, range) => match with {
                Some(name) => write!(f, "0 (automatic, with {name} 0) or {range}"),
                None => write!(f, "0 (automatic) or {range}"),
            },
            Range::Noted(range, _) => range.fmt(f),
            Range::Joint(range, condition) => write!(f, "{range}, {condition}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No bound names another parameter.
    fn alone(name: &str) -> (f64, Range) {
        panic!("no parameter {name} here")
    }

    #[test]
    fn numbers_are_written_as_the_tables_write_them() {
        let shown: Vec<String> = [0.0, 1.0, 0.005, 0.99, 1e-6, 0.001, 1e-9, 1e6, 1e9, -1e6]
            .iter()
            .map(|&x| Num(x).to_string())
            .collect();
        assert_eq!(
            shown,
            ["0", "1", "0.005", "0.99", "0.000001", "0.001", "1e-9", "1e6", "1e9", "-1e6"]
        );
    }

    #[test]
    fn text_and_errors() {
        let cases: [(Range, &str, &str); 8] = [
            (
                Range::Fraction(Bound::open(0.0), Bound::closed(1.0)),
                "(0, 1]",
                "must be in (0, 1]",
            ),
            (
                Range::Number(Bound::closed(-1e6), Bound::closed(1e6)),
                "[-1e6, 1e6]",
                "must be a number in [-1e6, 1e6]",
            ),
            (
                Range::Above(Bound::closed(1.0)),
                ">= 1",
                "must be a number >= 1",
            ),
            (
                DURATION_MS,
                "[0.000001, 1e9]",
                "must be a number in [0.000001, 1e9] (at least 1 ns)",
            ),
            (
                Range::Count(1),
                "integer in [1, 2^32-1]",
                "must be at least 1",
            ),
            (Range::Finite, "finite", "must be a finite number"),
            (
                Range::Auto(Some("q_max_pkts"), &POSITIVE),
                "0 (automatic, with q_max_pkts 0) or > 0",
                "must be 0 (automatic) or a number > 0",
            ),
            (
                Range::Joint(&POSITIVE, "with C·T in (0, B)"),
                "> 0, with C·T in (0, B)",
                "must be a number > 0",
            ),
        ];
        for (range, text, error) in cases {
            assert_eq!(range.to_string(), text);
            assert_eq!(range.message(&alone), error);
        }
    }

    #[test]
    fn every_numeric_range_refuses_what_is_not_finite() {
        for range in [
            Range::Above(Bound::open(0.0)),
            Range::Finite,
            Range::Auto(None, &POSITIVE_FRACTION),
        ] {
            for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                assert!(!range.allows(x, &alone), "{range} allows {x}");
            }
        }
    }

    #[test]
    fn bounds_that_name_other_parameters() {
        // b in [0, a] checks the relation; a in [b, 1] checks only a >= 0 from it.
        const B: Range = Range::Noted(
            &Range::Number(Bound::closed(0.0), Bound::at(Limit::Param("a"), true)),
            "a non-negative integral gain",
        );
        let a_range = Range::Number(Bound::at(Limit::Mirror("b"), true), Bound::closed(1.0));
        let other = |name: &str| match name {
            "a" => (0.5, a_range),
            "b" => (0.7, B),
            _ => panic!("{name}"),
        };
        assert_eq!(a_range.to_string(), "[b, 1]");
        assert!(a_range.allows(0.5, &other) && a_range.allows(0.0, &other));
        assert!(!a_range.allows(-1e-9, &other) && !a_range.allows(1.01, &other));
        assert!(!B.allows(0.7, &other), "b = 0.7 > a = 0.5");
        assert_eq!(
            B.message(&other),
            "must be a number in [0, a] (a non-negative integral gain)"
        );
        let between = Range::Between(Limit::Param("a"), Limit::Param("b"));
        assert_eq!(between.to_string(), "(a, b)");
        assert!(between.allows(0.6, &other) && !between.allows(0.5, &other));
        assert_eq!(between.message(&other), "must be in (a, b) = (0.5, 0.7)");
    }
}
