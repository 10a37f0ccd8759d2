//! The adaptive neuron shared by Neuron PID (Sun, Chan, Ko, Chen & Zukerman, ATNAC 2006) and
//! AN-AQM (Sun & Zukerman, IFIP Networking 2007), as Li et al. (2014) §2.5–2.6 write it: an
//! error signal turned into its three incremental-PID components, a neuron whose weighted,
//! normalised sum of its inputs is the increment of the drop probability, and associative
//! (supervised Hebbian) learning of the weights.

/// The three PID components of an error signal sampled every δt (Li et al. 2014 §2.5):
/// x₁(k) = e(k) − e(k−1) (proportional), x₂(k) = e(k) (integral), x₃(k) = e(k) − 2e(k−1) + e(k−2)
/// (derivative). **Reconstruction**: e(−1) = e(−2) = 0, the controller starts at rest.
#[derive(Clone, Debug, Default)]
pub(crate) struct PidComponents {
    /// e(k−1).
    e1: f64,
    /// e(k−2).
    e2: f64,
}

impl PidComponents {
    /// [x₁, x₂, x₃] for the sample `e` = e(k), which then becomes e(k−1).
    pub(crate) fn next(&mut self, e: f64) -> [f64; 3] {
        let x = [e - self.e1, e, e - 2.0 * self.e1 + self.e2];
        self.e2 = self.e1;
        self.e1 = e;
        x
    }
}

/// A single neuron with `N` inputs, its weights and its output, the drop probability p.
#[derive(Clone, Debug)]
pub(crate) struct Neuron<const N: usize> {
    /// w₁ … w_N.
    pub(crate) w: [f64; N],
    /// p(k), the output of the last step.
    pub(crate) p: f64,
}

impl<const N: usize> Neuron<N> {
    /// A neuron with every weight `w_initial` and output p = 0.
    pub(crate) fn new(w_initial: f64) -> Self {
        Neuron {
            w: [w_initial; N],
            p: 0.0,
        }
    }

    /// One sample: the output (Li et al. 2014 eq. (12)), then the learning step (eq. (11)).
    ///
    /// Eq. (12): p(k) = p(k−1) + K·Σᵢ wᵢ(k)·xᵢ(k) / Σᵢ |wᵢ(k)|, clamped to [0, 1].
    /// **Reconstruction**: the paper prints Σᵢ wᵢ in the denominator; the single-neuron PID
    /// law Neuron PID builds on (Wang et al. 2004, its reference [5]) normalises by Σᵢ |wᵢ|,
    /// which is the same while every weight is positive and stays finite when a weight the
    /// learning drives negative would make Σᵢ wᵢ pass through 0. With every weight 0 the
    /// output holds. The clamp keeps p a probability (the paper's p is a drop probability).
    /// The weights are divided by the largest |wᵢ| before the sums (the ratio is unchanged),
    /// so the sums cannot overflow whatever the weights.
    ///
    /// Eq. (11) (eqs. (9)–(10), associative learning with the teacher signal e(k)):
    /// wᵢ(k+1) = wᵢ(k) + dᵢ·e(k)·p(k)·xᵢ(k), with p(k) the output just computed. A weight
    /// saturates at ±`f64::MAX` rather than overflowing (reached only with learning rates or
    /// weights hundreds of orders of magnitude above the paper's).
    ///
    /// `x` and `teacher` must be finite. Panics if p is not a probability or a weight is not
    /// finite (a NaN must stop the run).
    pub(crate) fn step(&mut self, gain_k: f64, x: &[f64; N], d: &[f64; N], teacher: f64) {
        let largest = self.w.iter().fold(0.0_f64, |m, w| m.max(w.abs()));
        if largest > 0.0 {
            let norm: f64 = self.w.iter().map(|w| (w / largest).abs()).sum();
            let sum: f64 = self.w.iter().zip(x).map(|(w, x)| w / largest * x).sum();
            self.p = (self.p + gain_k * (sum / norm)).clamp(0.0, 1.0);
        }
        assert!(
            (0.0..=1.0).contains(&self.p),
            "drop probability {} is not in [0, 1]",
            self.p
        );
        for ((w, x), d) in self.w.iter_mut().zip(x).zip(d) {
            *w = (*w + self.p * teacher * x * d).clamp(-f64::MAX, f64::MAX);
            assert!(w.is_finite(), "neuron weight {w} is not finite");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_components_from_rest() {
        let mut c = PidComponents::default();
        // e = 10 from rest: x = [10 − 0, 10, 10 − 0 + 0].
        assert_eq!(c.next(10.0), [10.0, 10.0, 10.0]);
        // e = 4 after 10, 0: x = [4 − 10, 4, 4 − 20 + 0] = [−6, 4, −16].
        assert_eq!(c.next(4.0), [-6.0, 4.0, -16.0]);
        // e = −2 after 4, 10: x = [−6, −2, −2 − 8 + 10] = [−6, −2, 0].
        assert_eq!(c.next(-2.0), [-6.0, -2.0, 0.0]);
    }

    #[test]
    fn output_then_learning() {
        let mut n = Neuron::<3>::new(1.0);
        n.p = 0.1;
        // Σw = 3, Σwx = 2 + 1 − 1 = 2: p = 0.1 + 0.03·2/3 = 0.12.
        n.step(0.03, &[2.0, 1.0, -1.0], &[0.5, 0.25, 1.0], 10.0);
        assert!((n.p - 0.12).abs() < 1e-15);
        // wᵢ += dᵢ·10·0.12·xᵢ = dᵢ·1.2·xᵢ: [1 + 1.2, 1 + 0.3, 1 − 1.2].
        let want = [2.2, 1.3, -0.2];
        for (w, v) in n.w.iter().zip(want) {
            assert!((w - v).abs() < 1e-12, "{w} != {v}");
        }
        // Σ|w| = 3.7 (not Σw = 3.3): x = [1, 0, 0] gives p = 0.12 + 0.037·2.2/3.7 = 0.142.
        n.step(0.037, &[1.0, 0.0, 0.0], &[0.0; 3], 0.0);
        assert!((n.p - 0.142).abs() < 1e-15);
    }

    #[test]
    fn output_is_clamped_and_zero_weights_hold_it() {
        let mut n = Neuron::<2>::new(1.0);
        n.step(1.0, &[1e300, 1e300], &[0.0; 2], 0.0);
        assert_eq!(n.p, 1.0);
        n.step(1.0, &[-1e300, -1e300], &[0.0; 2], 0.0);
        assert_eq!(n.p, 0.0);
        let mut z = Neuron::<2>::new(0.0);
        z.p = 0.3;
        z.step(1.0, &[5.0, 5.0], &[1.0; 2], 1.0);
        assert_eq!(z.p, 0.3);
        // Weights saturate instead of overflowing, and the output stays a probability.
        let mut big = Neuron::<2>::new(f64::MAX);
        big.p = 1.0;
        big.step(1.0, &[1e10, -1e10], &[f64::MAX, f64::MAX], 4e9);
        assert_eq!(big.w, [f64::MAX, -f64::MAX]);
        big.step(1.0, &[1e10, 1e10], &[f64::MAX, f64::MAX], -4e9);
        assert_eq!(big.p, 1.0);
        assert_eq!(big.w, [-f64::MAX, -f64::MAX]);
        // No learning at p = 0: the weights stay.
        n.step(1.0, &[-1.0, -1.0], &[1.0; 2], 100.0);
        assert_eq!(n.w, [1.0, 1.0]);
    }
}
