//! Exact time-weighted mean and standard deviation of a piecewise-constant signal (the queue
//! length) over the measurement window.

use super::window::Window;

/// Integrates value·dt and value²·dt over the window.
#[derive(Clone, Debug)]
pub struct TimeAverage {
    window: Window,
    last_ns: u64,
    value: f64,
    area: f64,
    area_sq: f64,
}

impl TimeAverage {
    /// A signal that is 0 from time 0.
    pub fn new(window: Window) -> Self {
        TimeAverage {
            window,
            last_ns: 0,
            value: 0.0,
            area: 0.0,
            area_sq: 0.0,
        }
    }

    fn accumulate(&mut self, now_ns: u64) {
        let dt = self.window.overlap_ns(self.last_ns, now_ns) as f64;
        self.area += self.value * dt;
        self.area_sq += self.value * self.value * dt;
        self.last_ns = now_ns;
    }

    /// The signal takes `value` from `now_ns` on.
    pub fn set(&mut self, now_ns: u64, value: f64) {
        self.accumulate(now_ns);
        self.value = value;
    }

    /// Mean and standard deviation over the window, the signal held to the window's end.
    pub fn mean_std(&self) -> (f64, f64) {
        let mut done = self.clone();
        done.accumulate(self.window.end_ns);
        let len = (self.window.end_ns - self.window.start_ns) as f64;
        let mean = done.area / len;
        let var = (done.area_sq / len - mean * mean).max(0.0);
        (mean, var.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_by_time_inside_the_window() {
        let mut a = TimeAverage::new(Window {
            start_ns: 10,
            end_ns: 30,
        });
        a.set(0, 100.0); // before the window: ignored until 10
        a.set(20, 2.0); // 100 on [10, 20)
        a.set(25, 4.0); // 2 on [20, 25), 4 on [25, 30]
        let (mean, std) = a.mean_std();
        let expect = (100.0 * 10.0 + 2.0 * 5.0 + 4.0 * 5.0) / 20.0;
        assert!((mean - expect).abs() < 1e-12);
        let sq = (100.0f64.powi(2) * 10.0 + 4.0 * 5.0 + 16.0 * 5.0) / 20.0;
        assert!((std - (sq - expect * expect).sqrt()).abs() < 1e-9);
    }
}
