//! The network of the model: N identical long-lived TCP flows through one bottleneck
//! (Ranjan, Abed & La 2004; self-tuning-RED paper, Chen, Hu & Ji 2011, §2 and Fig. 1).

use aqm::ParamError;

/// Network parameters of the map of eq. (2.3), units in the names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// N, the number of flows (a real number, so that it can be swept continuously).
    pub n_flows: f64,
    /// C, the bottleneck capacity, megabits per second (10⁶ bit/s).
    pub capacity_mbps: f64,
    /// d, the round-trip propagation delay, seconds.
    pub d_s: f64,
    /// M, the packet size, bits.
    pub packet_bits: f64,
    /// B, the buffer size, packets.
    pub buffer_pkts: f64,
    /// K, the constant of the TCP throughput formula T = M·K/(√p·R) (eq. (3.3)); in
    /// [1, √(8/3)] for Reno (√1.5 for Reno with an ACK per packet, Mathis et al. 1997).
    pub k: f64,
}

impl Default for Network {
    /// The reference network of the self-tuning-RED paper §3.1 (taken from Ranjan et al.):
    /// C = 75 Mb/s, K = √1.5, M = 4000 bit, d = 0.1 s, N = 250, B = 3750 packets.
    fn default() -> Self {
        Network {
            n_flows: 250.0,
            capacity_mbps: 75.0,
            d_s: 0.1,
            packet_bits: 4000.0,
            buffer_pkts: 3750.0,
            k: 1.5f64.sqrt(),
        }
    }
}

impl Network {
    /// Check every parameter against its range in [`RANGES`].
    pub fn validate(&self) -> Result<(), ParamError> {
        let values = [
            self.n_flows,
            self.capacity_mbps,
            self.d_s,
            self.packet_bits,
            self.buffer_pkts,
            self.k,
        ];
        for ((field, lo, hi), x) in RANGES.iter().zip(values) {
            if !(*lo..=*hi).contains(&x) {
                return Err(ParamError::new(field, format!("must be in [{lo}, {hi}]")));
            }
        }
        Ok(())
    }

    /// C/M, the capacity in packets per second.
    pub fn capacity_pps(&self) -> f64 {
        self.capacity_mbps * 1e6 / self.packet_bits
    }

    /// C·d/M, the bandwidth-delay product in packets (the constant A2 of the map).
    pub fn bdp_pkts(&self) -> f64 {
        self.capacity_pps() * self.d_s
    }

    /// N·K (the constant A1 of the map written with p itself).
    pub fn nk(&self) -> f64 {
        self.n_flows * self.k
    }

    /// The instantaneous queue the flows build against drop probability `p`, eq. (2.3) with
    /// the clamps to the buffer: Q(p) = clamp(N·K/√p − C·d/M, 0, B), and Q(0) = B.
    ///
    /// From T = M·K/(√p·R) (eq. (3.3)) with R = d + q·M/C: N flows fill the link, N·T = C, when
    /// q = N·K/√p − C·d/M. Below p2 = (N·M·K/(d·C + B·M))² the buffer stays full (Q = B); at
    /// and above p1 = (N·M·K/(d·C))² the queue empties (Q = 0).
    pub fn queue_pkts(&self, p: f64) -> f64 {
        if p <= 0.0 {
            return self.buffer_pkts;
        }
        (self.nk() / p.sqrt() - self.bdp_pkts()).clamp(0.0, self.buffer_pkts)
    }

    /// dQ/dp where Q is not clamped: −N·K/(2·p^(3/2)); 0 on the clamped parts.
    pub fn queue_slope(&self, p: f64) -> f64 {
        if p <= 0.0 {
            return 0.0;
        }
        let raw = self.nk() / p.sqrt() - self.bdp_pkts();
        if raw > 0.0 && raw < self.buffer_pkts {
            -0.5 * self.nk() / (p * p.sqrt())
        } else {
            0.0
        }
    }

    /// p1 = (N·M·K/(d·C))²: the smallest drop probability that empties the queue.
    pub fn p1(&self) -> f64 {
        (self.nk() / self.bdp_pkts()).powi(2)
    }

    /// p2 = (N·M·K/(d·C + B·M))²: the largest drop probability that keeps the buffer full.
    pub fn p2(&self) -> f64 {
        (self.nk() / (self.bdp_pkts() + self.buffer_pkts)).powi(2)
    }
}

/// The allowed range of each network parameter, in the order of [`Network`]'s fields: wide
/// enough for any real network (1 bit/s to 1 Pb/s, 1 µs to 3 h of delay), narrow enough that
/// C·d/M, p1 and p2 stay finite and non-zero.
pub const RANGES: [(&str, f64, f64); 6] = [
    ("n_flows", 1e-3, 1e9),
    ("capacity_mbps", 1e-6, 1e9),
    ("d_s", 1e-6, 1e4),
    ("packet_bits", 8.0, 1e6),
    ("buffer_pkts", 1e-3, 1e9),
    ("k", 0.1, 10.0),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_network_constants() {
        let n = Network::default();
        assert!((n.capacity_pps() - 18_750.0).abs() < 1e-9);
        assert!((n.bdp_pkts() - 1875.0).abs() < 1e-9);
        // p1 = (N M K/(d C))², p2 = (N M K/(d C + B M))² as the paper writes them.
        let nmk = n.n_flows * n.packet_bits * n.k;
        let dc = n.d_s * n.capacity_mbps * 1e6;
        assert!((n.p1() - (nmk / dc).powi(2)).abs() < 1e-15);
        let p2 = (nmk / (dc + n.buffer_pkts * n.packet_bits)).powi(2);
        assert!((n.p2() - p2).abs() < 1e-15);
    }

    #[test]
    fn queue_is_clamped_to_the_buffer() {
        let n = Network::default();
        assert_eq!(n.queue_pkts(0.0), n.buffer_pkts);
        assert_eq!(n.queue_pkts(n.p2() * 0.999), n.buffer_pkts);
        assert!((n.queue_pkts(n.p2()) - n.buffer_pkts).abs() < 1e-9);
        assert!(n.queue_pkts(n.p1()).abs() < 1e-9);
        assert_eq!(n.queue_pkts(n.p1() * 1.001), 0.0);
        assert_eq!(n.queue_pkts(1.0), 0.0);
        assert_eq!(n.queue_slope(1.0), 0.0);
    }

    #[test]
    fn bad_values_name_the_field() {
        let field = |n: Network| n.validate().unwrap_err().field;
        let d = Network::default;
        assert_eq!(
            field(Network {
                n_flows: 0.0,
                ..d()
            }),
            "n_flows"
        );
        assert_eq!(field(Network { d_s: -1.0, ..d() }), "d_s");
        assert_eq!(field(Network { k: f64::NAN, ..d() }), "k");
        assert_eq!(
            field(Network {
                buffer_pkts: f64::INFINITY,
                ..d()
            }),
            "buffer_pkts"
        );
        let e = Network {
            capacity_mbps: 1e300,
            ..d()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "capacity_mbps: must be in [0.000001, 1000000000]"
        );
    }

    #[test]
    fn derived_constants_are_finite_and_positive_over_the_whole_ranges() {
        for corner in 0..64u32 {
            let pick = |i: usize| {
                let (_, lo, hi) = RANGES[i];
                if corner >> i & 1 == 1 {
                    hi
                } else {
                    lo
                }
            };
            let n = Network {
                n_flows: pick(0),
                capacity_mbps: pick(1),
                d_s: pick(2),
                packet_bits: pick(3),
                buffer_pkts: pick(4),
                k: pick(5),
            };
            n.validate().unwrap();
            for x in [n.bdp_pkts(), n.p1(), n.p2()] {
                assert!(x.is_finite() && x > 0.0, "{n:?}: {x}");
            }
        }
    }
}
