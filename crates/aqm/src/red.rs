//! RED, Random Early Detection (Floyd & Jacobson 1993), in the form the BetaRED paper states
//! it (Giménez et al. 2022, §2, eq. (1)–(2)): an exponentially weighted moving average of the
//! queue updated on every arrival, and a drop probability linear between two thresholds.

use crate::contract::{Aqm, EnqueueVerdict, PacketView, ParamError, QueueView};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// RED parameters (names as in the BetaRED paper, thresholds in packets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RedParams {
    /// Minimum threshold q_min, packets: no early drops below it.
    pub q_min_pkts: f64,
    /// Maximum threshold q_max, packets: every arrival is dropped above it.
    pub q_max_pkts: f64,
    /// Drop probability at q_max, p_max, in (0, 1].
    pub p_max: f64,
    /// EWMA weight w, in (0, 1].
    pub w: f64,
}

impl Default for RedParams {
    /// Floyd & Jacobson's recommendations scaled to a 1000-packet buffer: thresholds 100/300
    /// packets (q_max = 3 q_min), p_max = 0.1, w = 0.002.
    fn default() -> Self {
        RedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 300.0,
            p_max: 0.1,
            w: 0.002,
        }
    }
}

impl RedParams {
    /// Check every parameter against its allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.q_min_pkts >= 0.0 && self.q_min_pkts.is_finite()) {
            return Err(ParamError::new("q_min_pkts", "must be a number >= 0"));
        }
        if !(self.q_max_pkts > self.q_min_pkts && self.q_max_pkts.is_finite()) {
            return Err(ParamError::new(
                "q_max_pkts",
                "must be greater than q_min_pkts",
            ));
        }
        if !(self.p_max > 0.0 && self.p_max <= 1.0) {
            return Err(ParamError::new("p_max", "must be in (0, 1]"));
        }
        if !(self.w > 0.0 && self.w <= 1.0) {
            return Err(ParamError::new("w", "must be in (0, 1]"));
        }
        Ok(())
    }
}

/// RED state machine.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    /// Averaged queue q_avg, packets.
    q_avg_pkts: f64,
    /// Drop probability computed at the last arrival.
    p: f64,
}

impl Red {
    /// A RED queue manager with validated parameters.
    pub fn new(params: RedParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Red {
            params,
            q_avg_pkts: 0.0,
            p: 0.0,
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// Drop probability for an averaged queue, BetaRED paper eq. (1):
    /// 0 below q_min, p_max·(q_avg − q_min)/(q_max − q_min) between the thresholds, 1 above q_max.
    pub fn drop_probability(&self, q_avg_pkts: f64) -> f64 {
        let RedParams {
            q_min_pkts,
            q_max_pkts,
            p_max,
            ..
        } = self.params;
        if q_avg_pkts < q_min_pkts {
            0.0
        } else if q_avg_pkts < q_max_pkts {
            p_max * (q_avg_pkts - q_min_pkts) / (q_max_pkts - q_min_pkts)
        } else {
            1.0
        }
    }
}

impl Aqm for Red {
    fn name(&self) -> &'static str {
        "red"
    }

    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        _pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        // EWMA on every arrival, BetaRED paper eq. (2): q_avg ← (1 − w)·q_avg + w·q.
        let w = self.params.w;
        self.q_avg_pkts = (1.0 - w) * self.q_avg_pkts + w * f64::from(queue.len_pkts);
        self.p = self.drop_probability(self.q_avg_pkts);
        if self.q_avg_pkts >= self.params.q_max_pkts {
            EnqueueVerdict::ForcedDrop
        } else if self.p > 0.0 && rng.bernoulli(self.p) {
            EnqueueVerdict::EarlyDrop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["q_avg", "p"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.q_avg_pkts);
        out.push(self.p);
    }

    fn averaged_queue_pkts(&self) -> Option<f64> {
        Some(self.q_avg_pkts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(len_pkts: u32) -> QueueView {
        QueueView {
            len_pkts,
            len_bytes: u64::from(len_pkts) * 1000,
            limit_pkts: 1000,
            limit_bytes: 0,
            rate_bps: 50e6,
        }
    }

    const PKT: PacketView = PacketView {
        size_bytes: 1000,
        ect: false,
    };

    #[test]
    fn drop_curve_is_linear_between_thresholds() {
        let red = Red::new(RedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 300.0,
            p_max: 0.2,
            w: 0.5,
        })
        .unwrap();
        assert_eq!(red.drop_probability(99.9), 0.0);
        assert!((red.drop_probability(200.0) - 0.1).abs() < 1e-15);
        assert!((red.drop_probability(250.0) - 0.15).abs() < 1e-15);
        assert_eq!(red.drop_probability(300.0), 1.0);
    }

    #[test]
    fn ewma_follows_eq_2_on_every_arrival() {
        let mut red = Red::new(RedParams {
            w: 0.5,
            ..RedParams::default()
        })
        .unwrap();
        let mut rng = Rng::from_seed(1);
        // 0.5·0 + 0.5·40 = 20; 0.5·20 + 0.5·80 = 50; 0.5·50 + 0.5·10 = 30.
        for (q, expect) in [(40, 20.0), (80, 50.0), (10, 30.0)] {
            assert_eq!(
                red.on_enqueue(0, PKT, &queue(q), &mut rng),
                EnqueueVerdict::Accept
            );
            assert!((red.averaged_queue_pkts().unwrap() - expect).abs() < 1e-12);
        }
    }

    #[test]
    fn drop_frequency_matches_probability() {
        let params = RedParams {
            q_min_pkts: 0.0,
            q_max_pkts: 1000.0,
            p_max: 0.5,
            w: 1.0,
        };
        let mut red = Red::new(params).unwrap();
        let mut rng = Rng::from_seed(3);
        let n = 100_000;
        let drops = (0..n)
            .filter(|_| red.on_enqueue(0, PKT, &queue(400), &mut rng) == EnqueueVerdict::EarlyDrop)
            .count();
        let freq = drops as f64 / n as f64;
        assert!((freq - 0.2).abs() < 0.005, "frequency {freq}");
    }

    #[test]
    fn forced_drop_above_q_max() {
        let mut red = Red::new(RedParams {
            w: 1.0,
            ..RedParams::default()
        })
        .unwrap();
        let mut rng = Rng::from_seed(1);
        assert_eq!(
            red.on_enqueue(0, PKT, &queue(300), &mut rng),
            EnqueueVerdict::ForcedDrop
        );
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let bad = RedParams {
            q_max_pkts: 50.0,
            ..RedParams::default()
        };
        assert_eq!(Red::new(bad).unwrap_err().field, "q_max_pkts");
        let bad = RedParams {
            p_max: 1.5,
            ..RedParams::default()
        };
        assert_eq!(Red::new(bad).unwrap_err().field, "p_max");
        let bad = RedParams {
            w: 0.0,
            ..RedParams::default()
        };
        assert_eq!(Red::new(bad).unwrap_err().field, "w");
    }
}
