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
    (seconds * NS_PER_S as f64).round() as u64
}

/// Milliseconds (f64) to nanoseconds, rounded to the nearest nanosecond.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
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
}
