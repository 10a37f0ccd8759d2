//! The token bucket of a TBF shaper (ns-3.37 `TbfQueueDisc::DoDequeue`; Linux `sch_tbf`): a
//! bucket of `burst` bytes fills at `rate`; a packet may leave when the bucket holds its size,
//! which it then takes. With a peak rate, a second bucket of `mtu` bytes filled at the peak
//! rate must hold the packet too, so that bursts leave no faster than the peak rate.
//!
//! Tokens are kept in bytes as ns-3 does, the refill since the last departure rounded to the
//! nearest byte; when a packet must wait, the wait is the time the short bucket needs to
//! gather the missing bytes at its rate (ns-3 `CalculateBytesTxTime`), rounded up to whole
//! nanoseconds.

/// One bucket: its size, fill rate and level.
#[derive(Clone, Debug)]
struct Bucket {
    size_bytes: u64,
    bytes_per_s: f64,
    tokens: u64,
}

impl Bucket {
    /// The level after `elapsed_ns` of filling, capped at the size.
    fn level_after(&self, elapsed_ns: u64) -> u64 {
        let added = (elapsed_ns as f64 * 1e-9 * self.bytes_per_s).round() as u64;
        (self.tokens + added).min(self.size_bytes)
    }

    /// Nanoseconds until `level` reaches `need` bytes.
    fn wait_ns(&self, level: u64, need: u64) -> u64 {
        let missing = need.saturating_sub(level) as f64;
        (missing / self.bytes_per_s * 1e9).ceil() as u64
    }
}

/// The shaper's buckets, full at the start (ns-3 starts them full).
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate: Bucket,
    peak: Option<Bucket>,
    /// When the levels were last brought up to date, ns.
    checkpoint_ns: u64,
}

impl TokenBucket {
    /// A bucket of `burst_bytes` at `rate_bps`, with a peak bucket of `mtu_bytes` at
    /// `peak_rate_bps` when that is above 0.
    pub fn new(rate_bps: f64, burst_bytes: u64, peak_rate_bps: f64, mtu_bytes: u64) -> Self {
        let bucket = |bps: f64, size: u64| Bucket {
            size_bytes: size,
            bytes_per_s: bps / 8.0,
            tokens: size,
        };
        TokenBucket {
            rate: bucket(rate_bps, burst_bytes),
            peak: (peak_rate_bps > 0.0).then(|| bucket(peak_rate_bps, mtu_bytes)),
            checkpoint_ns: 0,
        }
    }

    /// Let a packet of `size_bytes` go at `now_ns` (taking its tokens), or say when it can.
    pub fn take(&mut self, now_ns: u64, size_bytes: u32) -> Result<(), u64> {
        let need = u64::from(size_bytes);
        let elapsed = now_ns - self.checkpoint_ns;
        let level = self.rate.level_after(elapsed);
        let peak_level = self.peak.as_ref().map(|p| p.level_after(elapsed));
        let peak_ok = peak_level.is_none_or(|l| l >= need);
        if level >= need && peak_ok {
            self.rate.tokens = level - need;
            if let (Some(p), Some(l)) = (&mut self.peak, peak_level) {
                p.tokens = l - need;
            }
            self.checkpoint_ns = now_ns;
            return Ok(());
        }
        let mut wait = self.rate.wait_ns(level, need);
        if let (Some(p), Some(l)) = (&self.peak, peak_level) {
            wait = wait.max(p.wait_ns(l, need));
        }
        Err(now_ns + wait.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_lets_a_burst_through_then_paces_at_the_rate() {
        // 8 Mb/s = 1 byte/us, bucket of 3000 bytes: two 1500-byte packets at once, the third
        // after 1500 us.
        let mut b = TokenBucket::new(8e6, 3000, 0.0, 0);
        assert_eq!(b.take(0, 1500), Ok(()));
        assert_eq!(b.take(0, 1500), Ok(()));
        assert_eq!(b.take(0, 1500), Err(1_500_000));
        assert_eq!(b.take(1_500_000, 1500), Ok(()));
        // Over a second the bucket passes its size plus rate × time, no more.
        let (mut t, mut sent) = (1_500_000u64, 0u64);
        while t < 1_001_500_000 {
            match b.take(t, 1000) {
                Ok(()) => sent += 1000,
                Err(at) => t = at,
            }
        }
        assert!((999_000..=1_001_000).contains(&sent), "{sent}");
    }

    #[test]
    fn the_peak_bucket_spaces_a_burst() {
        // A large bucket at 1 Mb/s, a peak of 8 Mb/s with a one-packet bucket: back-to-back
        // packets leave 1500 us apart (1500 bytes at 1 byte/us).
        let mut b = TokenBucket::new(1e6, 100_000, 8e6, 1500);
        assert_eq!(b.take(0, 1500), Ok(()));
        assert_eq!(b.take(0, 1500), Err(1_500_000));
        assert_eq!(b.take(1_500_000, 1500), Ok(()));
    }
}
