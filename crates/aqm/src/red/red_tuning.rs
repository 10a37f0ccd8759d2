//! The closed forms of the self-tuning-RED paper (Chen, Hu & Ji 2011, §3) that tune RED from
//! the network: the stability bound on the averaging weight and the re-estimate of p_max.
//! One definition each, used by the self-tuning RED algorithm ([`super::self_tuning_red`]) and
//! by the discrete-time model (`aqmlab-model`).

/// Eq. (3.12): the fixed point q_target of gentle RED's linear ramp is linearly stable in the
/// discrete-time model for w < 4/(3 + (q_min + d·C/M)/(q_target − q_min)), with d·C/M the
/// bandwidth-delay product in packets (`bdp_pkts`). The w here is the model's, one step per
/// round trip; a gateway averaging at every arrival uses about w/n, n packets per round trip
/// (§2.2).
pub fn w_bound_eq312(q_min_pkts: f64, q_target_pkts: f64, bdp_pkts: f64) -> f64 {
    4.0 / (3.0 + (q_min_pkts + bdp_pkts) / (q_target_pkts - q_min_pkts))
}

/// Eq. (3.6): the p_max that brings q_avg to q_target, from the p_max* in force over the last
/// period and the mean q̃ of q_avg over it:
/// p_max = p_max*·(q̃ − q_min)/(q_target − q_min)·(d + M·q̃/C)/(M·q_target/C + d),
/// with M/C the time to send one packet (`capacity_pkts_per_s` = C/M) and d the round-trip
/// propagation delay. It follows from eq. (3.2) with K estimated by eq. (3.5).
pub fn p_max_eq36(
    p_max_prev: f64,
    q_avg_mean_pkts: f64,
    q_min_pkts: f64,
    q_target_pkts: f64,
    d_s: f64,
    capacity_pkts_per_s: f64,
) -> f64 {
    let rtt = |q: f64| d_s + q / capacity_pkts_per_s;
    p_max_prev * (q_avg_mean_pkts - q_min_pkts) / (q_target_pkts - q_min_pkts)
        * rtt(q_avg_mean_pkts)
        / rtt(q_target_pkts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_of_the_papers_example() {
        // §3.3: C = 75 Mb/s, M = 4000 bit, d = 0.1 s: d·C/M = 1875 packets; q_min 250,
        // q* = 345.1: 4/(3 + 2125/95.1) = 4/25.34490 = 0.157822 (the paper's 0.1578).
        assert!((w_bound_eq312(250.0, 345.1, 1875.0) - 0.157822).abs() < 1e-6);
    }

    #[test]
    fn p_max_update_by_hand() {
        // q̃ at the target: p_max unchanged.
        assert_eq!(
            p_max_eq36(0.01, 1500.0, 750.0, 1500.0, 0.15, 37_500.0),
            0.01
        );
        // §5's network (C/M = 150 Mb/s / 4000 bit = 37 500 packets/s, d = 0.15 s), q̃ = 2250:
        // 0.01·(1500/750)·(0.15 + 0.06)/(0.15 + 0.04) = 0.02·0.21/0.19 = 0.0221053.
        let p = p_max_eq36(0.01, 2250.0, 750.0, 1500.0, 0.15, 37_500.0);
        assert!((p - 0.02 * 0.21 / 0.19).abs() < 1e-12);
    }
}
