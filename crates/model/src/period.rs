//! Period detection on the tail of an orbit.

/// The smallest p ≤ `max_period` with |x_i − x_(i−p)| ≤ `tol` over the last
/// min(2·max_period, len − p) points (at least p of them, so that two whole cycles agree);
/// `None` when there is none (chaos, a longer period, or an orbit still converging).
pub fn detect_period(x: &[f64], max_period: usize, tol: f64) -> Option<usize> {
    let n = x.len();
    (1..=max_period.min(n / 2)).find(|&p| {
        let window = (2 * max_period).min(n - p).max(p);
        (n - window..n).all(|i| (x[i] - x[i - p]).abs() <= tol)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_smallest_period() {
        let cycle = [1.0, 5.0, 2.0, 7.0];
        let x: Vec<f64> = (0..200).map(|i| cycle[i % 4]).collect();
        assert_eq!(detect_period(&x, 64, 1e-9), Some(4));
        let fixed = vec![3.0; 200];
        assert_eq!(detect_period(&fixed, 64, 1e-9), Some(1));
        let two: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { 1.0 } else { 1.5 })
            .collect();
        assert_eq!(detect_period(&two, 64, 1e-9), Some(2));
        assert_eq!(detect_period(&two, 64, 1.0), Some(1));
        let drift: Vec<f64> = (0..200).map(|i| i as f64).collect();
        assert_eq!(detect_period(&drift, 64, 1e-9), None);
        assert_eq!(detect_period(&[], 64, 1e-9), None);
    }
}
