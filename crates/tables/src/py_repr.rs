//! A float as Python's `repr` writes it, which is what pandas puts in a CSV file: the
//! shortest digits that read back as the same double, in fixed notation when the decimal
//! exponent lies in [-4, 16), else as `d.ddde±XX` (CPython `format_float_short` with mode
//! 'r' and `Py_DTSF_ADD_DOT_0`: a whole number keeps its `.0`).

/// `repr(x)` of Python for a double: `0.1`, `5.0`, `1e-05`, `1e+16`, `inf`, `nan`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.25e-7", "1e16", "0e0".
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponent is an integer");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    // The value is 0.d1d2...dn x 10^point.
    let point = exponent + 1;
    let n = digits.len() as i32;
    let body = if !(-4 < point && point <= 16) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{fraction}e{exp_sign}{:02}", exponent.abs())
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= n {
        format!("{digits}{}.0", "0".repeat((point - n) as usize))
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_repr() {
        // Each pair as CPython 3.11 prints `repr(x)`.
        let cases = [
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (1e16, "1e+16"),
            (123456789.123, "123456789.123"),
            (5.0, "5.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1.5e300, "1.5e+300"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (0.0001, "0.0001"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e15, "1000000000000000.0"),
            (1.23456e-08, "1.23456e-08"),
            (5e-324, "5e-324"),
            (-1.25e-7, "-1.25e-07"),
            (0.30000000000000004, "0.30000000000000004"),
            (1234.5, "1234.5"),
            (-7.0, "-7.0"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (12345678901234567890.0, "1.2345678901234567e+19"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
        }
    }
}
