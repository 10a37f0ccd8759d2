//! The random source every component draws from.
//!
//! xoshiro256++ (Blackman & Vigna, 2019) seeded through SplitMix64. Each component gets its own
//! stream, derived from the run seed and a stream label, so adding a flow never changes the
//! random numbers an AQM draws.

/// A small, fast, reproducible pseudo-random generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64 step (Steele, Lea & Flood 2014), used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a hash of a stream label, so labels can be readable strings.
fn label_hash(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

impl Rng {
    /// A generator seeded from one 64-bit value.
    pub fn from_seed(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// The independent stream named `label`/`index` of the run seeded with `seed`.
    pub fn stream(seed: u64, label: &str, index: u64) -> Self {
        let mut sm = seed ^ label_hash(label);
        let a = splitmix64(&mut sm);
        Rng::from_seed(a ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    /// Next raw 64-bit output (xoshiro256++).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Exponential with mean `mean`: −mean·ln(1 − U), finite since 1 − U is in (0, 1].
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Pareto with mean `mean` and shape `shape` > 1: scale x_m = mean·(shape − 1)/shape,
    /// drawn as x_m / (1 − U)^(1/shape) (inverse transform).
    pub fn pareto(&mut self, mean: f64, shape: f64) -> f64 {
        let scale = mean * (shape - 1.0) / shape;
        scale / (1.0 - self.uniform()).powf(1.0 / shape)
    }

    /// True with probability `p` (p outside [0, 1] is clamped by the comparison).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map(|_| Rng::stream(7, "aqm", 0).next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::stream(7, "aqm", 0);
        let mut y = Rng::stream(7, "aqm", 1);
        let mut z = Rng::stream(7, "start", 0);
        let (vx, vy, vz) = (x.next_u64(), y.next_u64(), z.next_u64());
        assert!(vx != vy && vx != vz && vy != vz);
    }

    #[test]
    fn uniform_has_the_right_mean() {
        let mut r = Rng::from_seed(1);
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        assert!((0..1000).all(|_| (0.0..1.0).contains(&r.uniform())));
    }
}
