//! RED, Random Early Detection (Floyd & Jacobson 1993), as the BetaRED paper states it
//! (Giménez et al. 2022, §2, eq. (1)–(2)) with the options of the original and of ns-2/ns-3:
//! the idle-time correction of the average, the gentle region, count-based spacing of drops,
//! byte mode, and ECN marking (by the host, on early drops).

use super::common_params::{
    BYTE_MODE_DOC, GENTLE_DOC, IDLE_CORRECTION_DOC, MARK_P_MAX_DOC, MEAN_PKT_BYTES_DOC, Q_MIN_DOC,
    SMALL_QUEUE_GUARD_DOC, SPACING_DOC, W_DOC,
};
use super::drop_decision::Spacing;
use super::red_core::{DropCurve, RedCore, RedFamily};
use crate::contract::{Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, ParamDoc, Range, POSITIVE_FRACTION};
use serde::{Deserialize, Serialize};

/// RED parameters (names as in the BetaRED paper, thresholds in packets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RedParams {
    /// Minimum threshold q_min, packets: no early drops below it.
    pub q_min_pkts: f64,
    /// Maximum threshold q_max, packets: above it every arrival is dropped (or, with the
    /// gentle region, the probability rises linearly to 1 at 2·q_max).
    pub q_max_pkts: f64,
    /// Drop probability at q_max, p_max, in (0, 1].
    pub p_max: f64,
    /// EWMA weight w, in (0, 1].
    pub w: f64,
    /// Gentle RED: p = p_max + (1 − p_max)(q_avg − q_max)/q_max between q_max and 2·q_max.
    pub gentle: bool,
    /// Spacing of drops: `none`, `uniform` or `wait`.
    pub spacing: Spacing,
    /// Byte mode: the drop probability scales with packet size / `mean_pkt_bytes`.
    pub byte_mode: bool,
    /// Decay the average over idle periods.
    pub idle_correction: bool,
    /// Typical packet size, bytes (idle-time correction and byte mode).
    pub mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet (ns-2, ns-3).
    pub ns_small_queue_guard: bool,
    /// With ECN, an early drop of an ECN-capable packet is marked only while p_b (the curve's
    /// probability, before spacing) is below this; at or above it the packet is dropped
    /// (ns-2's `mark_p_` with `use_mark_p_`). 1: marked wherever drops are not forced.
    pub mark_p_max: f64,
}

impl Default for RedParams {
    /// Floyd & Jacobson's recommendations scaled to a 1000-packet buffer: thresholds 100/300
    /// packets (q_max = 3 q_min), p_max = 0.1, w = 0.002; the plain RED of the BetaRED paper's
    /// equations otherwise (no gentle region, no spacing, packet mode), with the idle-time
    /// correction of the original.
    fn default() -> Self {
        RedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 300.0,
            p_max: 0.1,
            w: 0.002,
            gentle: false,
            spacing: Spacing::None,
            byte_mode: false,
            idle_correction: true,
            mean_pkt_bytes: 1000.0,
            ns_small_queue_guard: true,
            mark_p_max: 1.0,
        }
    }
}

impl AqmParams for RedParams {
    const AQM: &'static str = "red";
    const TITLE: &'static str = "RED";
    const PARAMS: &'static [ParamDoc] = &[
        Q_MIN_DOC,
        ParamDoc::new(
            "q_max_pkts",
            "packets",
            Range::Greater("q_min_pkts"),
            "maximum threshold q_max: p = p_max there, then 1 (gentle: at 2·q_max)",
        ),
        ParamDoc::new("p_max", "", POSITIVE_FRACTION, "drop probability at q_max"),
        W_DOC,
        GENTLE_DOC,
        SPACING_DOC,
        BYTE_MODE_DOC,
        IDLE_CORRECTION_DOC,
        MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
        MARK_P_MAX_DOC,
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Red::new(self)?))
    }
}

/// RED's drop curve: linear from 0 at q_min to p_max at q_max, then 1 (or, gentle, linear to 1
/// at 2·q_max).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearCurve {
    /// q_min, packets.
    pub q_min_pkts: f64,
    /// q_max, packets.
    pub q_max_pkts: f64,
    /// p_max.
    pub p_max: f64,
    /// Gentle region between q_max and 2·q_max.
    pub gentle: bool,
}

impl LinearCurve {
    /// Drop probability at averaged queue `q_avg`: BetaRED paper eq. (1),
    /// p = p_max·(q_avg − q_min)/(q_max − q_min) on [q_min, q_max); gentle RED (self-tuning-RED
    /// paper eq. (2.1)): p = p_max + (1 − p_max)·(q_avg − q_max)/q_max on [q_max, 2·q_max).
    pub fn probability(&self, q_avg_pkts: f64) -> f64 {
        let LinearCurve {
            q_min_pkts,
            q_max_pkts,
            p_max,
            gentle,
        } = *self;
        if q_avg_pkts < q_min_pkts {
            0.0
        } else if q_avg_pkts < q_max_pkts {
            p_max * (q_avg_pkts - q_min_pkts) / (q_max_pkts - q_min_pkts)
        } else if gentle && q_avg_pkts < 2.0 * q_max_pkts {
            p_max + (1.0 - p_max) * (q_avg_pkts - q_max_pkts) / q_max_pkts
        } else {
            1.0
        }
    }
}

impl DropCurve for LinearCurve {
    fn probability(&self, q_avg_pkts: f64) -> f64 {
        LinearCurve::probability(self, q_avg_pkts)
    }

    /// Whether q_avg is in the forced-drop region (above q_max, or 2·q_max when gentle).
    fn forced(&self, q_avg_pkts: f64) -> bool {
        q_avg_pkts
            >= if self.gentle {
                2.0 * self.q_max_pkts
            } else {
                self.q_max_pkts
            }
    }
}

/// RED state machine.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    curve: LinearCurve,
    core: RedCore,
}

impl Red {
    /// A RED queue manager with validated parameters.
    pub fn new(params: RedParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Red {
            curve: LinearCurve {
                q_min_pkts: params.q_min_pkts,
                q_max_pkts: params.q_max_pkts,
                p_max: params.p_max,
                gentle: params.gentle,
            },
            core: RedCore::new(
                params.w,
                params.idle_correction,
                params.spacing,
                params.byte_mode,
                params.mean_pkt_bytes,
                params.ns_small_queue_guard,
            )
            .with_mark_p_max(params.mark_p_max),
            params,
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// Drop probability for an averaged queue (eq. (1), with the gentle region if enabled).
    pub fn drop_probability(&self, q_avg_pkts: f64) -> f64 {
        self.curve.probability(q_avg_pkts)
    }
}

impl RedFamily for Red {
    type Curve = LinearCurve;
    const NAME: &'static str = "red";
    const PROBE_NAMES: &'static [&'static str] = &["q_avg", "p"];

    fn core(&self) -> &RedCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }

    fn curve(&self) -> &LinearCurve {
        &self.curve
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend([self.core.q_avg_pkts(), self.core.p(&self.curve)]);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::contract::{Aqm, EnqueueVerdict, PacketView, QueueView};
    use crate::rng::Rng;

    pub(crate) fn queue(len_pkts: u32) -> QueueView {
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

    fn red(p: RedParams) -> Red {
        Red::new(p).unwrap()
    }

    #[test]
    fn drop_curve_is_linear_between_thresholds() {
        let r = red(RedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 300.0,
            p_max: 0.2,
            ..RedParams::default()
        });
        assert_eq!(r.drop_probability(99.9), 0.0);
        assert!((r.drop_probability(200.0) - 0.1).abs() < 1e-15);
        assert!((r.drop_probability(250.0) - 0.15).abs() < 1e-15);
        assert_eq!(r.drop_probability(300.0), 1.0);
    }

    #[test]
    fn gentle_region_rises_to_one_at_twice_q_max() {
        let r = red(RedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 300.0,
            p_max: 0.2,
            gentle: true,
            ..RedParams::default()
        });
        assert!((r.drop_probability(300.0) - 0.2).abs() < 1e-15);
        assert!((r.drop_probability(450.0) - 0.6).abs() < 1e-15);
        assert_eq!(r.drop_probability(600.0), 1.0);
        assert!(!r.curve.forced(599.0) && r.curve.forced(600.0));
    }

    #[test]
    fn ewma_follows_eq_2_on_every_arrival() {
        let mut r = red(RedParams {
            w: 0.5,
            ..RedParams::default()
        });
        let mut rng = Rng::from_seed(1);
        // 0.5·0 + 0.5·40 = 20; 0.5·20 + 0.5·80 = 50; 0.5·50 + 0.5·10 = 30.
        for (q, expect) in [(40, 20.0), (80, 50.0), (10, 30.0)] {
            assert_eq!(
                r.on_enqueue(0, PKT, &queue(q), &mut rng),
                EnqueueVerdict::Accept
            );
            assert!((r.averaged_queue_pkts().unwrap() - expect).abs() < 1e-12);
        }
    }

    #[test]
    fn drop_frequency_matches_probability() {
        let mut r = red(RedParams {
            q_min_pkts: 0.0,
            q_max_pkts: 1000.0,
            p_max: 0.5,
            w: 1.0,
            ..RedParams::default()
        });
        let mut rng = Rng::from_seed(3);
        let n = 100_000;
        let drops = (0..n)
            .filter(|_| r.on_enqueue(0, PKT, &queue(400), &mut rng) == EnqueueVerdict::EarlyDrop)
            .count();
        let freq = drops as f64 / n as f64;
        assert!((freq - 0.2).abs() < 0.005, "frequency {freq}");
    }

    #[test]
    fn forced_drop_above_q_max() {
        let mut r = red(RedParams {
            w: 1.0,
            ..RedParams::default()
        });
        let mut rng = Rng::from_seed(1);
        assert_eq!(
            r.on_enqueue(0, PKT, &queue(300), &mut rng),
            EnqueueVerdict::ForcedDrop
        );
    }

    /// ns-2 (setbit_ true, use_mark_p_ true, mark_p_ 0.1) on gentle RED with p_max 0.1: an
    /// ECN-capable arrival is marked on the linear ramp (p_b < 0.1) and dropped in the gentle
    /// region (p_b ≥ 0.1); the default keeps it markable there.
    #[test]
    fn mark_p_max_drops_ecn_capable_packets_in_the_gentle_region() {
        let ect = PacketView {
            size_bytes: 1000,
            ect: true,
        };
        let verdicts = |mark_p_max: f64, q_avg: f64| {
            let mut r = red(RedParams {
                gentle: true,
                w: 1.0,
                mark_p_max,
                ..RedParams::default()
            });
            let mut rng = Rng::from_seed(5);
            let q = q_avg as u32;
            let all: Vec<_> = (0..2000)
                .map(|_| r.on_enqueue(0, ect, &queue(q), &mut rng))
                .collect();
            let n = |v| all.iter().filter(|&&x| x == v).count();
            (n(EnqueueVerdict::EarlyDrop), n(EnqueueVerdict::ForcedDrop))
        };
        let (early, forced) = verdicts(0.1, 250.0); // p_b = 0.075
        assert!(early > 0 && forced == 0);
        let (early, forced) = verdicts(0.1, 450.0); // p_b = 0.55
        assert!(early == 0 && forced > 0);
        let (early, forced) = verdicts(1.0, 450.0);
        assert!(early > 0 && forced == 0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let field = |p: RedParams| Red::new(p).unwrap_err().field;
        let d = RedParams::default;
        assert_eq!(
            field(RedParams {
                q_max_pkts: 50.0,
                ..d()
            }),
            "q_max_pkts"
        );
        assert_eq!(field(RedParams { p_max: 1.5, ..d() }), "p_max");
        for bad in [0.0, -0.1, 1.01, f64::NAN] {
            let p = RedParams {
                mark_p_max: bad,
                ..d()
            };
            assert_eq!(field(p.clone()), "mark_p_max");
            assert_eq!(Red::new(p).unwrap_err().message, "must be in (0, 1]");
        }
        assert_eq!(field(RedParams { w: 0.0, ..d() }), "w");
        assert_eq!(
            field(RedParams {
                mean_pkt_bytes: 0.0,
                ..d()
            }),
            "mean_pkt_bytes"
        );
    }

    /// q_avg 600 > q_max 300 on an idle 12.6 Mb/s link of 1000-byte packets (1575 packets/s,
    /// so m = ⌊1575·0.1⌋ = 157 per 100 ms), w = 0.002: the queue went empty at t = 0 and four
    /// packets arrive 100 ms apart; an accepted packet goes straight onto the wire. Each
    /// arrival decays q_avg by 0.998^(157 + 1): 437.3, 318.7, 232.3, then
    /// 600·0.998^632 = 169.3, whether the arrivals are accepted or dropped.
    fn idle_link_after_congestion(guard: bool) -> Vec<EnqueueVerdict> {
        let mut r = red(RedParams {
            ns_small_queue_guard: guard,
            ..RedParams::default()
        });
        let link = |len_pkts| QueueView {
            rate_bps: 12.6e6,
            ..queue(len_pkts)
        };
        let mut rng = Rng::from_seed(1);
        r.core.set_q_avg(600.0);
        r.on_dequeue(0, 0, PKT, &link(0), &mut rng);
        let mut verdicts = Vec::new();
        for k in 1..=4u64 {
            let now = k * 100_000_000;
            let v = r.on_enqueue(now, PKT, &link(0), &mut rng);
            if v == EnqueueVerdict::Accept {
                r.on_dequeue(now, 0, PKT, &link(0), &mut rng);
            }
            let expect = 600.0 * 0.998f64.powi(158 * k as i32);
            let q_avg = r.averaged_queue_pkts().unwrap();
            assert!(
                (q_avg - expect).abs() < 1e-9,
                "arrival {k}: {q_avg} vs {expect}"
            );
            verdicts.push(v);
        }
        assert!((r.averaged_queue_pkts().unwrap() - 169.3).abs() < 0.05);
        verdicts
    }

    #[test]
    fn dropped_arrivals_on_an_idle_link_keep_decaying_q_avg() {
        let v = idle_link_after_congestion(false);
        assert_eq!(
            v[..2],
            [EnqueueVerdict::ForcedDrop, EnqueueVerdict::ForcedDrop]
        );
        assert_ne!(v[3], EnqueueVerdict::ForcedDrop, "q_avg 169.3 < q_max");
    }

    #[test]
    fn small_queue_guard_accepts_arrivals_at_an_idle_queue() {
        let v = idle_link_after_congestion(true);
        assert_eq!(v, [EnqueueVerdict::Accept; 4]);
        // q_avg ≈ 599 > q_max: one packet queued is still guarded, two are not.
        let mut g = red(RedParams::default());
        let mut rng = Rng::from_seed(1);
        g.core.set_q_avg(600.0);
        assert_eq!(
            g.on_enqueue(0, PKT, &queue(1), &mut rng),
            EnqueueVerdict::Accept
        );
        assert_eq!(
            g.on_enqueue(0, PKT, &queue(2), &mut rng),
            EnqueueVerdict::ForcedDrop
        );
    }
}
