//! Simulated time: integer nanoseconds since the start of the run.

/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;

/// The longest time a scenario may give (a duration, a delay, a timeout), seconds: about
/// 31.7 years, so that the sums the simulator forms from a few such times stay far below the
/// 584 years that u64 nanoseconds hold.
pub const MAX_TIME_S: f64 = 1e9;

/// [`MAX_TIME_S`] in milliseconds.
pub const MAX_TIME_MS: f64 = MAX_TIME_S * 1e3;

/// Seconds (f64) to nanoseconds, rounded to the nearest nanosecond.
pub fn s_to_ns(seconds: f64) -> u64 {
    round_to_u64(seconds * NS_PER_S as f64)
}

/// Milliseconds (f64) to nanoseconds, rounded to the nearest nanosecond.
pub fn ms_to_ns(ms: f64) -> u64 {
    round_to_u64(ms * 1e6)
}

/// `x.round() as u64` (halves away from zero; negative and NaN to 0, saturating at
/// `u64::MAX`) without a call to libm's `round`: the cast truncates, and the fraction it
/// drops, `x - trunc(x)`, is exact in f64, so comparing it with 0.5 rounds exactly as `round`
/// does.
fn round_to_u64(x: f64) -> u64 {
    let whole = x as u64;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// Nanoseconds to seconds.
pub fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// Time to serialise `bytes` onto a link of `rate_bps`, rounded up to whole nanoseconds (a
/// rate of 0 counts as 1 b/s; scenarios never give one).
pub fn tx_time_ns(bytes: u32, rate_bps: u64) -> u64 {
    (u64::from(bytes) * 8 * NS_PER_S).div_ceil(rate_bps.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_times() {
        assert_eq!(tx_time_ns(1000, 50_000_000), 160_000);
        assert_eq!(tx_time_ns(1000, 100_000_000), 80_000);
        assert_eq!(tx_time_ns(1, 3), 2_666_666_667);
        assert_eq!(tx_time_ns(1, 0), 8_000_000_000);
        assert_eq!(s_to_ns(0.25), 250_000_000);
        assert_eq!(ms_to_ns(10.0), 10_000_000);
        assert_eq!(s_to_ns(MAX_TIME_S), 1_000_000_000_000_000_000);
    }

    #[test]
    fn rounding_matches_f64_round() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut cases = vec![
            -1.5,
            -0.5,
            0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            4503599627370495.5,
            9007199254740993.0,
            1e19,
            2e19,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for _ in 0..100_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let scale = 10f64.powi((state >> 60) as i32);
            cases.push((state >> 11) as f64 / (1u64 << 53) as f64 * scale);
            cases.push((state >> 40) as f64 + 0.5);
        }
        for x in cases {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x}");
        }
    }
}
