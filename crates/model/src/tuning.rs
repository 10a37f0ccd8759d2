//! The p_max that puts the model's fixed point where one wants it (self-tuning-RED paper §3.1,
//! eq. (3.1)–(3.2)): the closed form for the linear ramp and the general form for any drop
//! function p = p_max·g(q). `Model::new` uses it when the parameters ask for p_max from
//! q_target.

use crate::drop_function::DropFunction;
use crate::network::Network;
use aqm::ParamError;

/// Eq. (3.2): p_max = r·(N·M·K)²/(M·q* + d·C)², r = (q_max − q_min)/(q* − q_min), the p_max
/// of the linear ramp whose fixed point is q* (the root of eq. (3.1)).
pub fn p_max_eq32(network: &Network, q_min_pkts: f64, q_max_pkts: f64, q_star_pkts: f64) -> f64 {
    let r = (q_max_pkts - q_min_pkts) / (q_star_pkts - q_min_pkts);
    let m = network.packet_bits;
    let dc = network.d_s * network.capacity_mbps * 1e6;
    r * (network.n_flows * m * network.k).powi(2) / (m * q_star_pkts + dc).powi(2)
}

/// The p_max that makes q_target the fixed point, for a drop function p = p_max·g(q) on
/// [q_min, q_max) (`shape` is that function built with any p_max): Q(p) = q_target needs
/// p* = (N·K/(q_target + C·d/M))², so p_max = p*/g(q_target). For the linear ramp
/// g = 1/r and this is eq. (3.2). An error when q_target is outside (q_min, q_max) or (0, B)
/// or the result exceeds 1.
pub fn p_max_for_target(
    network: &Network,
    shape: &DropFunction,
    q_target_pkts: f64,
) -> Result<f64, ParamError> {
    let (q_min, q_max, _) = shape.thresholds();
    let field = "q_target_pkts";
    if !(q_target_pkts > q_min && q_target_pkts < q_max) {
        return Err(ParamError::new(
            field,
            format!("must be in (q_min_pkts, q_max_pkts) = ({q_min}, {q_max})"),
        ));
    }
    if q_target_pkts >= network.buffer_pkts {
        return Err(ParamError::new(field, "must be below buffer_pkts"));
    }
    let g = shape.ramp(q_target_pkts).unwrap_or(0.0);
    let p_star = (network.nk() / (q_target_pkts + network.bdp_pkts())).powi(2);
    let p_max = p_star / g;
    if !(p_max > 0.0 && p_max <= 1.0) {
        return Err(ParamError::new(
            field,
            format!(
                "the fixed point {q_target_pkts} needs p_max = {p_max:.4} (eq. (3.2)), outside (0, 1]"
            ),
        ));
    }
    Ok(p_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_function::DropKind;
    use crate::fixed_point::equilibria;
    use crate::map::Model;
    use crate::params::ModelParams;

    #[test]
    fn p_max_for_a_target_eq_3_2() {
        let n = Network::default();
        // p_max = 0.1 puts the fixed point at q* = 345.1 (to the paper's precision).
        assert!((p_max_eq32(&n, 250.0, 750.0, 345.1) - 0.1).abs() < 1e-4);
        for target in [270.0, 300.0, 345.1, 400.0, 600.0] {
            let closed = p_max_eq32(&n, 250.0, 750.0, target);
            let shape = DropFunction::linear(250.0, 750.0, 1.0, true).unwrap();
            let general = p_max_for_target(&n, &shape, target).unwrap();
            assert!((closed - general).abs() < 1e-14, "target {target}");
            let m = Model::new(&ModelParams {
                q_target_pkts: target,
                p_max_from_target: true,
                ..ModelParams::default()
            })
            .unwrap();
            let q = equilibria(&m).fixed_points[0].q_avg_pkts;
            assert!(
                (q - target).abs() < 1e-9,
                "target {target}: fixed point {q}"
            );
        }
        // The same for BetaRED: the fixed point lands on q_target for every θ.
        for theta in [0.05, 0.1, 0.3] {
            let m = Model::new(&ModelParams {
                drop: DropKind::BetaRed,
                theta,
                q_target_pkts: 345.1,
                p_max_from_target: true,
                ..ModelParams::default()
            })
            .unwrap();
            let q = equilibria(&m).fixed_points[0].q_avg_pkts;
            assert!((q - 345.1).abs() < 1e-8, "θ = {theta}: {q}");
        }
        let shape = DropFunction::linear(250.0, 750.0, 1.0, false).unwrap();
        assert_eq!(
            p_max_for_target(&n, &shape, 800.0).unwrap_err().field,
            "q_target_pkts"
        );
        // Just above q_min the needed p_max exceeds 1.
        let e = p_max_for_target(&n, &shape, 250.5).unwrap_err();
        assert!(e.message.contains("outside (0, 1]"), "{e}");
    }
}
