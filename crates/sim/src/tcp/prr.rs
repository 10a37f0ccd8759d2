//! Proportional Rate Reduction (RFC 6937) as ns-3.37's `TcpPrrRecovery` computes it, in bytes
//! of payload as ns-3 does so that its rounding is kept: during recovery the window is set on
//! every ACK to what is in flight plus what may be sent now.
//!
//! While pipe > ssthresh (the proportional part, RFC 6937 §3):
//!   sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out.
//! Otherwise, with ns-3's default slow-start reduction bound (SSRB):
//!   sndcnt = min(ssthresh − pipe, limit), where limit = max(prr_delivered − prr_out,
//!   DeliveredData) + 1 segment if this ACK covered retransmitted data, else DeliveredData
//!   (RFC 6937 adds the segment on every ACK; ns-3 only when a retransmission is acknowledged).
//! The first call of an episode allows at least one segment, the fast retransmit.

/// PRR's state during one recovery episode.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    /// Bytes delivered to the receiver since recovery began (prr_delivered).
    delivered_bytes: u64,
    /// Bytes sent since recovery began (prr_out).
    out_bytes: u64,
    /// Data outstanding when recovery began (RecoverFS), bytes.
    recover_fs_bytes: u64,
}

impl Prr {
    /// Recovery begins with `outstanding_bytes` sent and unacknowledged (ns-3 uses
    /// HighData − HighACK).
    pub fn enter(outstanding_bytes: u64) -> Self {
        Prr {
            delivered_bytes: 0,
            out_bytes: 0,
            recover_fs_bytes: outstanding_bytes.max(1),
        }
    }

    /// Bytes were sent during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out_bytes += bytes;
    }

    /// An ACK delivered `delivered_bytes` (cumulatively acknowledged or newly SACKed) with
    /// `pipe_bytes` in flight after it; returns the new cwnd in bytes (pipe + sndcnt).
    pub fn on_ack(
        &mut self,
        delivered_bytes: u64,
        pipe_bytes: u64,
        ssthresh_bytes: u64,
        retransmission_acked: bool,
        segment_bytes: u64,
    ) -> u64 {
        self.delivered_bytes += delivered_bytes;
        let send_count: i64 = if pipe_bytes > ssthresh_bytes {
            let share = (self.delivered_bytes as f64 * ssthresh_bytes as f64
                / self.recover_fs_bytes as f64)
                .ceil() as i64;
            share - self.out_bytes as i64
        } else {
            let room = ssthresh_bytes as i64 - pipe_bytes as i64;
            let limit = if retransmission_acked {
                (self.delivered_bytes as i64 - self.out_bytes as i64).max(delivered_bytes as i64)
                    + segment_bytes as i64
            } else {
                delivered_bytes as i64
            };
            limit.min(room)
        };
        let floor = if self.out_bytes > 0 {
            0
        } else {
            segment_bytes as i64
        };
        let send_count = send_count.max(floor);
        (pipe_bytes as i64 + send_count).max(0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §5, the first example: one loss in a window of 20 segments, ssthresh 10.
    /// Every ACK delivers one segment; PRR sends one segment on every other ACK, so the
    /// window comes down to ssthresh in one RTT without a silence. In bytes, as ns-3 counts,
    /// the first ACK allows ⌈3·10/20⌉ = 1.5 segments: the retransmission goes, the half waits.
    #[test]
    fn one_segment_per_two_delivered_while_pipe_exceeds_ssthresh() {
        let ssthresh = 10 * MSS;
        let mut prr = Prr::enter(20 * MSS);
        // The third duplicate ACK: 3 segments SACKed, the head lost; pipe 16 (20 − 3 − 1).
        let mut pipe = 16 * MSS;
        let cwnd = prr.on_ack(3 * MSS, pipe, ssthresh, false, MSS);
        assert_eq!(cwnd - pipe, 1500);
        prr.on_sent(MSS);
        pipe += MSS;
        let mut sent = Vec::new();
        for _ in 0..15 {
            pipe -= MSS; // one more segment left the network
            let cwnd = prr.on_ack(MSS, pipe, ssthresh, false, MSS);
            let n = (cwnd.saturating_sub(pipe)) / MSS;
            prr.on_sent(n * MSS);
            pipe += n * MSS;
            sent.push(n);
        }
        // One segment per two ACKs while pipe > ssthresh; when pipe falls to ssthresh the
        // reduction bound sends what each ACK delivers, up to ssthresh.
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        assert_eq!(pipe, 10 * MSS, "the window ends at ssthresh");
    }

    #[test]
    fn reduction_bound_below_ssthresh() {
        let mut prr = Prr::enter(20 * MSS);
        prr.on_sent(MSS);
        // pipe 4 segments, far below ssthresh 10: without a retransmission acknowledged only
        // what this ACK delivered may go out.
        assert_eq!(prr.on_ack(2 * MSS, 4 * MSS, 10 * MSS, false, MSS), 6 * MSS);
        // With one: max(prr_delivered − prr_out, delivered) + 1 segment = (4 − 1) + 1 = 4
        // segments, within ssthresh − pipe = 6.
        assert_eq!(prr.on_ack(2 * MSS, 4 * MSS, 10 * MSS, true, MSS), 8 * MSS);
    }
}
