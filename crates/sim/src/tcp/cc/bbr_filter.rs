//! BBR's windowed maximum filter of the delivery rate (Kathleen Nichols' algorithm as ns-3.37's
//! WindowedFilter with MaxFilter, after Chromium QUIC and Linux win_minmax.c): the best, second
//! best and third best samples of the last `window` rounds, each newer than the one before,
//! so the maximum over the window is known without keeping every sample.

/// A sample and the round it was taken in.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    value: f64,
    round: u64,
}

/// The running maximum over a window of rounds.
#[derive(Clone, Debug)]
pub struct MaxFilter {
    window_rounds: u64,
    /// The value the filter was made with: a best equal to it is replaced by any sample
    /// (ns-3's m_zeroValue).
    zero_value: f64,
    samples: [Sample; 3],
}

impl MaxFilter {
    /// A filter over `window_rounds` rounds holding `initial` taken at round `round`.
    pub fn new(window_rounds: u64, initial: f64, round: u64) -> Self {
        let s = Sample {
            value: initial,
            round,
        };
        MaxFilter {
            window_rounds,
            zero_value: initial,
            samples: [s; 3],
        }
    }

    /// The maximum over the window.
    pub fn best(&self) -> f64 {
        self.samples[0].value
    }

    /// Add `value` taken at `round` (ns-3.37 WindowedFilter::Update).
    pub fn update(&mut self, value: f64, round: u64) {
        let new = Sample { value, round };
        let w = self.window_rounds;
        let s = &mut self.samples;
        if s[0].value == self.zero_value || value >= s[0].value || round - s[2].round > w {
            *s = [new; 3];
            return;
        }
        if value >= s[1].value {
            s[1] = new;
            s[2] = new;
        } else if value >= s[2].value {
            s[2] = new;
        }
        if round - s[0].round > w {
            s[0] = s[1];
            s[1] = s[2];
            s[2] = new;
            if round - s[0].round > w {
                s[0] = s[1];
                s[1] = s[2];
            }
            return;
        }
        if s[1].value == s[0].value && round - s[1].round > w / 4 {
            s[1] = new;
            s[2] = new;
            return;
        }
        if s[2].value == s[1].value && round - s[2].round > w / 2 {
            s[2] = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_initial_value_gives_way_to_any_sample() {
        let mut f = MaxFilter::new(10, 50.0, 0);
        assert_eq!(f.best(), 50.0);
        f.update(20.0, 1);
        assert_eq!(f.best(), 20.0);
    }

    #[test]
    fn keeps_the_maximum_for_the_window_then_the_next_best() {
        let mut f = MaxFilter::new(10, 1.0, 0);
        f.update(100.0, 1);
        for round in 2..=11 {
            f.update(60.0, round);
            assert_eq!(f.best(), 100.0, "round {round}");
        }
        // Round 12 is more than 10 rounds after round 1: the 100 expires, 60 remains.
        f.update(60.0, 12);
        assert_eq!(f.best(), 60.0);
        // A larger sample takes over at once.
        f.update(70.0, 13);
        assert_eq!(f.best(), 70.0);
    }

    #[test]
    fn second_best_is_newer_than_best() {
        let mut f = MaxFilter::new(10, 1.0, 0);
        f.update(100.0, 1);
        f.update(80.0, 4);
        // 50 at round 8 is kept nowhere: the third best is the 80 until half a window passes.
        f.update(50.0, 8);
        // After the 100 expires the 80 (round 4) is best until it expires in turn.
        f.update(40.0, 12);
        assert_eq!(f.best(), 80.0);
        f.update(40.0, 15);
        assert_eq!(f.best(), 40.0);
        // Nothing left in the window: the filter restarts from the sample.
        f.update(30.0, 40);
        assert_eq!(f.best(), 30.0);
    }
}
