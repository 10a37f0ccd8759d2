//! What the sender does for pacing and for a rate-based congestion control (ns-3's
//! HasCongControl, BBR): delivery-rate bookkeeping around each ACK
//! ([`super::rate_sample`]), the CongControl call with the ACK's rate sample where ns-3.37's
//! ReceivedAck makes it (after ProcessAck), the state changes such an algorithm hears of, the
//! pacing rate after each ACK (UpdatePacingRate) and the pacing timer's wake-up.

use super::cc::{CongControlState, CongEvent, Controller};
use super::config::TcpConfig;
use super::pacing::Pacer;
use super::rate_sample::{RateConnection, RateSample};
use super::sender::{CongState, Sender};
use crate::packet::Packet;
use crate::time::s_to_ns;

/// What an ACK's rate sample compares against: the state before the ACK.
#[derive(Clone, Copy, Debug)]
pub(super) struct BeforeAck {
    in_flight_pkts: u32,
    lost_pkts: u32,
    delivered_pkts: u64,
}

impl Sender {
    /// Whether the pacing timer applies to the next segment: pacing is on and the initial
    /// window is out (ns-3's IsPacingEnabled with PaceInitialWindow false).
    pub(super) fn paced(&self, cfg: &TcpConfig) -> bool {
        cfg.pacing && self.board.high() >= cfg.initial_cwnd_pkts
    }

    /// Bookkeeping for segment `seq` about to go on the wire at `now_ns`: its rate record
    /// and the pacing timer.
    pub(super) fn on_transmit_paced(&mut self, seq: u32, now_ns: u64, cfg: &TcpConfig) {
        if let Some(rate) = &mut self.rate {
            let start_of_transmission = self.board.pipe() == 0;
            rate.on_sent(seq, now_ns, start_of_transmission);
        }
        if self.paced(cfg) {
            self.pacer.on_sent(now_ns);
        }
    }

    /// The sending loop may go on at `now_ns` (the pacing timer does not run); when it runs,
    /// the sender asks to be woken at its expiry.
    pub(super) fn pacing_allows(&mut self, now_ns: u64, cfg: &TcpConfig) -> bool {
        if self.paced(cfg) && self.pacer.holds(now_ns) {
            self.pacer.hold();
            return false;
        }
        true
    }

    /// A new segment leaves with nothing in flight (CA_EVENT_TX_START).
    pub(super) fn on_send_from_idle(&mut self, now_ns: u64, cfg: &TcpConfig) {
        if self.rate_based && self.board.pipe() == 0 {
            self.cc_event(CongEvent::TxStart, now_ns, cfg);
        }
    }

    /// After a sending attempt with no new data left: ns-3's CalculateAppLimited.
    pub(super) fn check_app_limited(&mut self) {
        if let Some(rate) = &mut self.rate {
            if self.board.high() >= self.app_limit {
                let lost_resent = self.board.lost_out() <= self.board.retrans_out();
                rate.check_app_limited(self.cwnd_pkts, self.board.pipe(), lost_resent);
            }
        }
    }

    /// When the sender wants its pacing wake-up, if it does.
    pub fn pace_deadline_ns(&self) -> Option<u64> {
        self.pacer.wake_ns()
    }

    /// The pacing timer expired (stale calls are ignored): send what it held back.
    pub fn on_pace_timer(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.pacer.wake_ns().is_some_and(|t| t <= now_ns) {
            self.pacer.on_wake();
            self.try_send(now_ns, cfg, out);
        }
    }

    /// The connection is open: a rate-based algorithm initialises (CongestionStateSet(CA_OPEN)),
    /// otherwise the pacing rate is set from the RTT estimate so far.
    pub(super) fn on_established(&mut self, now_ns: u64, cfg: &TcpConfig) {
        if self.rate_based {
            self.cc_event(CongEvent::Start, now_ns, cfg);
        } else if cfg.pacing {
            self.update_pacing_rate(cfg);
        }
    }

    /// The state an ACK's rate sample is measured against (ns-3 reads it before ReadOptions).
    pub(super) fn before_ack(&self) -> Option<BeforeAck> {
        self.rate_based.then(|| BeforeAck {
            in_flight_pkts: self.board.pipe(),
            lost_pkts: self.board.lost_out(),
            delivered_pkts: self.delivered_pkts(),
        })
    }

    /// Segments delivered so far: the delivery-rate estimator's count, or the scoreboard's
    /// when the algorithm reads no more than counts.
    fn delivered_pkts(&self) -> u64 {
        match &self.rate {
            Some(rate) => rate.connection().delivered_pkts,
            None => self.board.delivered_pkts(),
        }
    }

    /// The ACK's SACK blocks delivered segments.
    pub(super) fn rate_on_sack(&mut self, ack: &Packet, now_ns: u64) {
        if let Some(rate) = &mut self.rate {
            rate.on_sack(ack.sack_blocks(), now_ns);
        }
    }

    /// The ACK cumulatively acknowledged everything below `ackno`; in flight as ns-3 computes
    /// it before ProcessAck.
    pub(super) fn rate_on_cumulative_ack(&mut self, ackno: u32, now_ns: u64) {
        if self.rate_based {
            if let Some(rate) = &mut self.rate {
                rate.on_cumulative_ack(ackno, now_ns);
            }
            self.in_flight_at_ack_pkts = self.board.pipe();
        }
    }

    /// After ProcessAck: CongControl with the ACK's rate sample, or the pacing rate from cwnd.
    pub(super) fn after_ack(&mut self, before: Option<BeforeAck>, now_ns: u64, cfg: &TcpConfig) {
        if let Some(b) = before {
            let delivered_pkts = self.delivered_pkts();
            let delivered = (delivered_pkts - b.delivered_pkts) as u32;
            let lost = self.board.lost_out().abs_diff(b.lost_pkts);
            // Each arm hands its own sample on (no tuple of the two moved out of the match).
            match &mut self.rate {
                Some(rate) => {
                    let min_rtt_ns = self.min_rtt_s.map(s_to_ns);
                    let sample =
                        *rate.generate_sample(delivered, lost, b.in_flight_pkts, min_rtt_ns);
                    let conn = *rate.connection();
                    self.cc_event(CongEvent::Ack(&sample, &conn), now_ns, cfg);
                }
                // An algorithm that reads only the counts (Prague): the connection's delivered
                // count, and no timing.
                None => {
                    let sample = RateSample::counts(delivered, lost, b.in_flight_pkts);
                    let conn = RateConnection {
                        delivered_pkts,
                        ..RateConnection::default()
                    };
                    self.cc_event(CongEvent::Ack(&sample, &conn), now_ns, cfg);
                }
            }
        } else if cfg.pacing {
            self.update_pacing_rate(cfg);
        }
    }

    fn update_pacing_rate(&mut self, cfg: &TcpConfig) {
        let in_flight = self.board.pipe();
        self.pacer.update_rate(
            self.cwnd_pkts,
            self.ssthresh_pkts,
            in_flight,
            self.rtt.srtt_s(),
            cfg,
        );
    }

    /// Hand `event` to the rate-based algorithm and take back cwnd, ssthresh, the pacing
    /// rate and the pacing burst.
    pub(super) fn cc_event(&mut self, event: CongEvent<'_>, now_ns: u64, cfg: &TcpConfig) {
        let mut st = CongControlState {
            cwnd_pkts: self.cwnd_pkts,
            ssthresh_pkts: self.ssthresh_pkts,
            pacing_rate_pkts_per_s: self.pacer.rate_pkts_per_s(),
            max_pacing_rate_pkts_per_s: Pacer::max_rate_pkts_per_s(cfg),
            pacing_burst_pkts: self.pacer.burst_pkts(),
            in_flight_pkts: self.in_flight_at_ack_pkts,
            in_recovery: self.state == CongState::Recovery,
            initial_cwnd_pkts: cfg.initial_cwnd_pkts,
            now_ns,
            srtt_s: self.rtt.srtt_s(),
            min_rtt_s: self.min_rtt_s,
            snd_una: self.board.una(),
            snd_max: self.board.high(),
            ece: self.ack_ece,
        };
        self.cc.cong_control(&mut st, event);
        self.cwnd_pkts = st.cwnd_pkts;
        self.ssthresh_pkts = st.ssthresh_pkts;
        self.pacer.set_rate_pkts_per_s(st.pacing_rate_pkts_per_s);
        self.pacer.set_burst_pkts(st.pacing_burst_pkts);
    }
}
