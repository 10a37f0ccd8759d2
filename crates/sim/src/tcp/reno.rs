//! Reno's window rules (RFC 5681 §3.1): +1 segment per RTT in congestion avoidance, halve the
//! flight size on congestion.

/// Congestion-avoidance growth: cwnd += acked/cwnd (RFC 5681 eq. (3), per acked segment).
pub fn on_ack_avoidance(cwnd_pkts: f64, acked_pkts: u32) -> f64 {
    cwnd_pkts + f64::from(acked_pkts) / cwnd_pkts
}

/// ssthresh after a congestion event: max(FlightSize/2, 2) (RFC 5681 eq. (4)).
pub fn ssthresh_after_loss(flight_pkts: u32) -> f64 {
    (f64::from(flight_pkts) / 2.0).max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_per_window() {
        let mut cwnd = 10.0;
        for _ in 0..10 {
            cwnd = on_ack_avoidance(cwnd, 1);
        }
        assert!((cwnd - 11.0).abs() < 0.05);
        assert_eq!(ssthresh_after_loss(20), 10.0);
        assert_eq!(ssthresh_after_loss(3), 2.0);
    }
}
