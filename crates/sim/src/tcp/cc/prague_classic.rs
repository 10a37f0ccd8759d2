//! TCP Prague's detection of a classic ECN bottleneck (L4STeam Linux `tcp_prague.c`,
//! `prague_classic_ecn_detection`; RFC 9331 §4.3 item 3 asks L4S senders to fall back to a
//! classic response behind a classic ECN AQM; draft-briscoe-iccrg-prague-congestion-control
//! §2.3.3). A classic AQM keeps a standing queue with a large RTT variation; an L4S queue keeps
//! both small. Once per round a score moves by
//!   V·log2(mdev / V0) + D·max(log2(depth / D0), 0),   V = D = 1/2, V0 = 750 µs, D0 = 2 ms,
//! where mdev is the mean deviation of the RTT (the accurate RTT of each ACK's newest
//! acknowledged segment, Linux's `ca_rtt_us`) and depth the smoothed RTT less the minimum,
//! both from an estimator with a gain of 2^−g, g = min(⌊log2 ssthresh⌋ + ⌊⌊log2 ssthresh⌋/2⌋ + 1,
//! 18) (`prague_update_rtt_scaling`). The score lives in [0, 17] in units of α: at most 8
//! ("L-sticky") the response is L4S; between 8 and 9 the α used for a reduction is at least
//! 0.625·(score − 8); from 9 on (up to the "C-sticky" 17) at least 0.625.
//!
//! Linux computes the logarithms in fixed point, carrying the fraction from round to round;
//! this model takes them in floating point, which those carries approximate.

/// V: the weight of the RTT variation term.
const WEIGHT_V: f64 = 0.5;
/// D: the weight of the queue depth term.
const WEIGHT_D: f64 = 0.5;
/// V0: the reference RTT deviation, µs (Linux V0_LG, 2^9.55 µs).
const V0_US: f64 = 750.0;
/// D0: the reference queue depth, µs (Linux D0_LG, 2^10.97 µs).
const D0_US: f64 = 2000.0;
/// Up to this score the response is pure L4S (L_STICKY).
const L_STICKY: f64 = 8.0;
/// The score of a full transition to classic (CLASSIC_ECN = L_STICKY + 1).
const CLASSIC_ECN: f64 = L_STICKY + 1.0;
/// The score's ceiling (C_STICKY).
const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
/// The estimator's largest gain exponent (PRAGUE_MAX_SRTT_BITS).
const MAX_GAIN_SHIFT: u32 = 18;

/// The detector's state.
#[derive(Clone, Copy, Debug)]
pub struct ClassicDetector {
    /// Smoothed RTT of the detector's own estimator, µs (0 before the first sample).
    srtt_us: f64,
    /// Its mean deviation, µs.
    mdev_us: f64,
    /// Gain exponent g of the smoothed RTT (the deviation's is g + 1).
    gain_shift: u32,
    /// The score, in units of α.
    score: f64,
}

impl Default for ClassicDetector {
    fn default() -> Self {
        ClassicDetector {
            srtt_us: 0.0,
            mdev_us: 1.0,
            gain_shift: MAX_GAIN_SHIFT,
            score: 0.0,
        }
    }
}

impl ClassicDetector {
    /// An RTT sample (`prague_rtt_estimator`): srtt += (m − srtt)/2^g,
    /// mdev += (|m − srtt| − mdev)/2^(g+1).
    pub fn on_rtt_sample(&mut self, rtt_us: f64) {
        if self.srtt_us == 0.0 {
            self.srtt_us = rtt_us;
            return;
        }
        let error = rtt_us - self.srtt_us;
        self.srtt_us += error / f64::from(1u32 << self.gain_shift);
        self.mdev_us += (error.abs() - self.mdev_us) / f64::from(1u32 << (self.gain_shift + 1));
    }

    /// ssthresh was set (`prague_update_rtt_scaling`): the gains follow the window.
    pub fn on_ssthresh(&mut self, ssthresh_pkts: f64) {
        let lg = (ssthresh_pkts.max(1.0) as u32).ilog2();
        self.gain_shift = (lg + lg / 2 + 1).min(MAX_GAIN_SHIFT);
    }

    /// A round ended: move the score by the RTT deviation and the queue depth above
    /// `min_rtt_us`.
    pub fn on_round(&mut self, min_rtt_us: f64) {
        if self.srtt_us == 0.0 {
            return;
        }
        let mut score = self.score + WEIGHT_V * (self.mdev_us.max(1.0) / V0_US).log2();
        if self.srtt_us > min_rtt_us {
            let depth_us = self.srtt_us - min_rtt_us;
            score += WEIGHT_D * (depth_us / D0_US).log2().max(0.0);
        }
        self.score = score.clamp(0.0, C_STICKY);
    }

    /// The α a reduction uses: `alpha`, or more once the bottleneck looks classic
    /// (`prague_classic_ecn_fallback`: 0.625 × the transition's progress).
    pub fn alpha_for_reduction(&self, alpha: f64) -> f64 {
        if self.score <= L_STICKY {
            return alpha;
        }
        let progress = self.score.min(CLASSIC_ECN) - L_STICKY;
        alpha.max(0.625 * progress)
    }

    /// The score, in units of α (for tests and traces).
    pub fn score(&self) -> f64 {
        self.score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_varying_queue_turns_the_score_classic() {
        let mut d = ClassicDetector::default();
        d.on_ssthresh(20.0); // g = 4 + 2 + 1 = 7
        assert_eq!(d.gain_shift, 7);
        // RTTs between 20 and 40 ms over a 10 ms minimum: mdev ≈ 10 ms, depth ≈ 20 ms.
        for i in 0..5000 {
            d.on_rtt_sample(if i % 2 == 0 { 20_000.0 } else { 40_000.0 });
        }
        d.on_round(10_000.0);
        // 0.5·log2(10000/750) + 0.5·log2(20000/2000) ≈ 1.87 + 1.66 per round.
        assert!((d.score() - 3.53).abs() < 0.1, "{}", d.score());
        for _ in 0..5 {
            d.on_round(10_000.0);
        }
        assert_eq!(d.score(), C_STICKY);
        assert_eq!(d.alpha_for_reduction(0.1), 0.625);
    }

    #[test]
    fn a_shallow_steady_queue_keeps_the_l4s_response() {
        let mut d = ClassicDetector::default();
        d.on_ssthresh(20.0);
        for _ in 0..5000 {
            d.on_rtt_sample(10_500.0);
        }
        for _ in 0..10 {
            d.on_round(10_000.0);
        }
        assert_eq!(d.score(), 0.0);
        assert_eq!(d.alpha_for_reduction(0.1), 0.1);
    }

    #[test]
    fn the_fallback_grows_through_the_transition() {
        let d = ClassicDetector {
            score: 8.5,
            ..ClassicDetector::default()
        };
        assert_eq!(d.alpha_for_reduction(0.1), 0.3125);
        assert_eq!(d.alpha_for_reduction(0.5), 0.5);
    }
}
