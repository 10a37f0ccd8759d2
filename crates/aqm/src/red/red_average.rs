//! The averaged queue shared by the RED family: an exponentially weighted moving average
//! updated on every arrival, with Floyd & Jacobson's idle-time correction.

/// EWMA of the queue length, packets.
#[derive(Clone, Debug)]
pub struct QueueAverage {
    /// Weight w of the current sample.
    w: f64,
    /// Apply the idle-time correction.
    idle_correction: bool,
    /// q_avg, packets.
    q_avg_pkts: f64,
    /// Start of the stretch of idle time not yet applied to q_avg: when the queue last became
    /// empty, or the last arrival that found it empty and left it so. None while busy.
    idle_since_ns: Option<u64>,
}

impl QueueAverage {
    /// An average starting at 0 with weight `w`.
    pub fn new(w: f64, idle_correction: bool) -> Self {
        QueueAverage {
            w,
            idle_correction,
            q_avg_pkts: 0.0,
            idle_since_ns: None,
        }
    }

    /// Current q_avg, packets.
    pub fn value(&self) -> f64 {
        self.q_avg_pkts
    }

    /// An arrival sees `len_pkts` packets waiting.
    ///
    /// q_avg ← (1 − w)·q_avg + w·q (Floyd & Jacobson 1993, §4; BetaRED paper eq. (2)). When the
    /// queue is idle since `t_idle`, the average first decays as if m = ⌊ptc·(now − t_idle)⌋
    /// empty-queue samples had arrived: q_avg ← (1 − w)^m·q_avg (Floyd & Jacobson 1993, §11,
    /// "idle time"; ns-2/ns-3 truncate m the same way), where ptc is the link's rate in packets
    /// per second of `mean_pkt_bytes`. The idle period ends only when a packet is accepted
    /// ([`QueueAverage::on_accept`]) or an arrival finds the queue busy: an arrival that is
    /// dropped on an idle queue applies the idle time so far and the next one continues from
    /// it, so q_avg keeps decaying while every arrival is turned away.
    pub fn on_arrival(
        &mut self,
        now_ns: u64,
        len_pkts: u32,
        rate_bps: f64,
        mean_pkt_bytes: f64,
    ) -> f64 {
        if len_pkts > 0 {
            self.idle_since_ns = None;
        } else if let Some(since) = self.idle_since_ns {
            if self.idle_correction {
                let ptc = rate_bps / (8.0 * mean_pkt_bytes);
                let m = (ptc * now_ns.saturating_sub(since) as f64 * 1e-9).floor();
                self.q_avg_pkts *= (1.0 - self.w).powf(m);
            }
            self.idle_since_ns = Some(now_ns);
        }
        self.q_avg_pkts = (1.0 - self.w) * self.q_avg_pkts + self.w * f64::from(len_pkts);
        self.q_avg_pkts
    }

    /// The arrival just decided on was accepted: the queue is no longer idle.
    pub fn on_accept(&mut self) {
        self.idle_since_ns = None;
    }

    /// A packet left and `len_after_pkts` remain: an empty queue starts an idle period.
    pub fn on_departure(&mut self, now_ns: u64, len_after_pkts: u32) {
        if len_after_pkts == 0 {
            self.idle_since_ns = Some(now_ns);
        }
    }

    /// Start from q_avg = `q_avg_pkts` (scripted tests).
    #[cfg(test)]
    pub(crate) fn set_value(&mut self, q_avg_pkts: f64) {
        self.q_avg_pkts = q_avg_pkts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_time_decays_the_average() {
        let mut a = QueueAverage::new(0.5, true);
        a.on_arrival(0, 100, 8000.0, 1000.0); // 50
        a.on_departure(1_000_000_000, 0);
        // 3.5 s idle at 1 packet/s: m = 3, then the arrival's own update with q = 0.
        let v = a.on_arrival(4_500_000_000, 0, 8000.0, 1000.0);
        assert!((v - 50.0 * 0.5f64.powi(3) * 0.5).abs() < 1e-12);
        let mut b = QueueAverage::new(0.5, false);
        b.on_arrival(0, 100, 8000.0, 1000.0);
        b.on_departure(1_000_000_000, 0);
        assert_eq!(b.on_arrival(4_500_000_000, 0, 8000.0, 1000.0), 25.0);
    }

    #[test]
    fn dropped_arrivals_keep_the_idle_period_running() {
        // Empty since t = 0, 1 packet/s, w = 0.5, q_avg 64; arrivals at 2.5 s and 5 s are
        // dropped (never accepted): the first decays by m = 2 then samples 0 (64·0.5²·0.5 = 8),
        // the second by the 2.5 s since the first, m = 2, then samples 0 (8·0.5²·0.5 = 1).
        let mut a = QueueAverage::new(0.5, true);
        a.set_value(64.0);
        a.on_departure(0, 0);
        assert_eq!(a.on_arrival(2_500_000_000, 0, 8000.0, 1000.0), 8.0);
        assert_eq!(a.on_arrival(5_000_000_000, 0, 8000.0, 1000.0), 1.0);
        // Accepted: idle ends, so an arrival 10 s later finds no idle time to apply.
        a.on_accept();
        assert_eq!(a.on_arrival(15_000_000_000, 0, 8000.0, 1000.0), 0.5);
    }
}
