//! The model's parameters: the network, the drop function and its control parameters, and
//! the averaging weight; their names (as the Python API, the CLI and sweeps spell them), and
//! the parameter that a sweep varies.

use crate::drop_function::DropKind;
use crate::network::Network;
use aqm::ParamError;

/// Everything the map of eq. (2.3) depends on. Defaults: the self-tuning-RED paper's reference
/// case (§3.1), gentle RED as that paper uses it (§2.1), q_target at mid-ramp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelParams {
    /// N, C, d, M, B, K.
    pub network: Network,
    /// Which drop function p(q_avg).
    pub drop: DropKind,
    /// q_min, packets.
    pub q_min_pkts: f64,
    /// q_max, packets.
    pub q_max_pkts: f64,
    /// p_max, in (0, 1]; replaced by the value of eq. (3.2) when `p_max_from_target` is set.
    pub p_max: f64,
    /// q_target, packets: BetaRED's mean (μ = (q_target − q_min)/(q_max − q_min), eq. (8) of
    /// the BetaRED paper), and the desired fixed point when `p_max_from_target` is set.
    pub q_target_pkts: f64,
    /// θ ∈ [0.005, 1), BetaRED only: σ = θ·√(μ(1 − μ)).
    pub theta: f64,
    /// w ∈ (0, 1], the averaging weight per round trip (not RED's per-packet weight: see
    /// `docs/model.md` and the paper's §2.2, w ≈ 1 − (1 − w_red)^n).
    pub w: f64,
    /// Set p_max so that the fixed point is q_target: eq. (3.2) for the linear ramp, its
    /// general form p_max = p*/g(q_target) for BetaRED (see `fixed_point`).
    pub p_max_from_target: bool,
}

impl Default for ModelParams {
    fn default() -> Self {
        ModelParams {
            network: Network::default(),
            drop: DropKind::Gentle,
            q_min_pkts: 250.0,
            q_max_pkts: 750.0,
            p_max: 0.1,
            q_target_pkts: 500.0,
            theta: 0.1,
            w: 0.02,
            p_max_from_target: false,
        }
    }
}

/// A numeric parameter, by name: what a sweep varies and what `set` changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// w.
    W,
    /// p_max.
    PMax,
    /// θ.
    Theta,
    /// q_target.
    QTarget,
    /// q_min.
    QMin,
    /// q_max.
    QMax,
    /// N.
    NFlows,
    /// C, Mb/s.
    CapacityMbps,
    /// d, s.
    DS,
    /// M, bits.
    PacketBits,
    /// B, packets.
    BufferPkts,
    /// K.
    K,
}

impl Param {
    /// Every parameter, in the order the documentation lists them.
    pub const ALL: [Param; 12] = [
        Param::W,
        Param::PMax,
        Param::Theta,
        Param::QTarget,
        Param::QMin,
        Param::QMax,
        Param::NFlows,
        Param::CapacityMbps,
        Param::DS,
        Param::PacketBits,
        Param::BufferPkts,
        Param::K,
    ];

    /// The canonical name, units included.
    pub fn name(self) -> &'static str {
        match self {
            Param::W => "w",
            Param::PMax => "p_max",
            Param::Theta => "theta",
            Param::QTarget => "q_target_pkts",
            Param::QMin => "q_min_pkts",
            Param::QMax => "q_max_pkts",
            Param::NFlows => "n_flows",
            Param::CapacityMbps => "capacity_mbps",
            Param::DS => "d_s",
            Param::PacketBits => "packet_bits",
            Param::BufferPkts => "buffer_pkts",
            Param::K => "k",
        }
    }

    /// The short alias the papers use (N, C, d, M, B, K, q_min, q_max, q_target), if any.
    pub fn alias(self) -> Option<&'static str> {
        match self {
            Param::QTarget => Some("q_target"),
            Param::QMin => Some("q_min"),
            Param::QMax => Some("q_max"),
            Param::NFlows => Some("N"),
            Param::CapacityMbps => Some("C"),
            Param::DS => Some("d"),
            Param::PacketBits => Some("M"),
            Param::BufferPkts => Some("B"),
            Param::K => Some("K"),
            Param::W | Param::PMax | Param::Theta => None,
        }
    }

    /// The parameter called `name` (canonical name or alias).
    pub fn from_name(name: &str) -> Result<Param, ParamError> {
        Param::ALL
            .into_iter()
            .find(|p| p.name() == name || p.alias() == Some(name))
            .ok_or_else(|| {
                let names: Vec<&str> = Param::ALL.iter().map(|p| p.name()).collect();
                ParamError::new(
                    name,
                    format!("unknown model parameter (allowed: {})", names.join(", ")),
                )
            })
    }
}

impl ModelParams {
    /// The value of `param`.
    pub fn get(&self, param: Param) -> f64 {
        let n = &self.network;
        match param {
            Param::W => self.w,
            Param::PMax => self.p_max,
            Param::Theta => self.theta,
            Param::QTarget => self.q_target_pkts,
            Param::QMin => self.q_min_pkts,
            Param::QMax => self.q_max_pkts,
            Param::NFlows => n.n_flows,
            Param::CapacityMbps => n.capacity_mbps,
            Param::DS => n.d_s,
            Param::PacketBits => n.packet_bits,
            Param::BufferPkts => n.buffer_pkts,
            Param::K => n.k,
        }
    }

    /// Set `param` to `value` (checked when the model is built).
    pub fn set(&mut self, param: Param, value: f64) {
        let n = &mut self.network;
        let slot = match param {
            Param::W => &mut self.w,
            Param::PMax => &mut self.p_max,
            Param::Theta => &mut self.theta,
            Param::QTarget => &mut self.q_target_pkts,
            Param::QMin => &mut self.q_min_pkts,
            Param::QMax => &mut self.q_max_pkts,
            Param::NFlows => &mut n.n_flows,
            Param::CapacityMbps => &mut n.capacity_mbps,
            Param::DS => &mut n.d_s,
            Param::PacketBits => &mut n.packet_bits,
            Param::BufferPkts => &mut n.buffer_pkts,
            Param::K => &mut n.k,
        };
        *slot = value;
    }

    /// A copy with `param` set to `value`.
    pub fn with(&self, param: Param, value: f64) -> ModelParams {
        let mut p = *self;
        p.set(param, value);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_round_trip() {
        for p in Param::ALL {
            assert_eq!(Param::from_name(p.name()).unwrap(), p);
            if let Some(a) = p.alias() {
                assert_eq!(Param::from_name(a).unwrap(), p);
            }
            let params = ModelParams::default().with(p, 0.123);
            assert_eq!(params.get(p), 0.123);
        }
        let e = Param::from_name("gamma").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("gamma: unknown model parameter (allowed: w, p_max"));
    }
}
