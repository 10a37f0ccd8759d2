//! The interface every congestion-control algorithm implements, with the operations called at
//! the points where ns-3.37's TcpSocketBase calls its congestion operations (PktsAcked,
//! IncreaseWindow, GetSsThresh, CongestionStateSet and the entry into the loss state). The
//! sender and its recovery paths own cwnd and ssthresh; an algorithm answers with new values,
//! and says through [`Controller::take_window_update`] where ns-3's algorithm writes the
//! socket's window itself.

use crate::tcp::config::{EcnFeedback, EctCodepoint, TcpConfig};
use crate::tcp::rate_sample::{RateConnection, RateSample};

/// The congestion state of the sender (ns-3's TcpCongState_t, Linux's ca_state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongState {
    /// No loss suspected.
    Open,
    /// Duplicate ACKs or SACKs seen, fewer than needed to declare a loss.
    Disorder,
    /// Fast recovery after a fast retransmit.
    Recovery,
    /// After a retransmission timeout, until `recover` is acknowledged.
    Loss,
    /// Window reduction after an ECN echo, until `recover` is acknowledged.
    Cwr,
}

/// cwnd or ssthresh an algorithm set itself while handling an ACK, beyond the value its method
/// returned (segments; None: unchanged).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowUpdate {
    /// New congestion window.
    pub cwnd_pkts: Option<f64>,
    /// New slow-start threshold.
    pub ssthresh_pkts: Option<f64>,
}

/// What the sender knows when an ACK acknowledges new data.
#[derive(Clone, Copy, Debug)]
pub struct AckedInfo {
    /// Segments this ACK newly acknowledges (cumulatively).
    pub acked_pkts: u32,
    /// Oldest unacknowledged segment after the ACK.
    pub snd_una: u32,
    /// One past the highest segment sent.
    pub snd_max: u32,
    /// The RTT sample this ACK gave, seconds (None under Karn's rule).
    pub rtt_sample_s: Option<f64>,
    /// Now less the send time of the newest segment this ACK cumulatively acknowledges, when
    /// no segment it acknowledges was resent, seconds: Linux's `ca_rtt_us`, the accurate RTT
    /// `pkts_acked` hands on, free of the time a delayed ACK held the older segments. Set on
    /// the SACK path for algorithms with [`Controller::NEEDS_NEWEST_RTT`], otherwise None.
    pub newest_rtt_s: Option<f64>,
    /// Time of the ACK, seconds.
    pub now_s: f64,
    /// Smoothed RTT after this ACK, seconds (None before the first sample). CUBIC and
    /// HyStart take their delays from it, as ns-3.37 passes its latest RTT estimate.
    pub srtt_s: Option<f64>,
    /// The lowest smoothed RTT so far, seconds, the handshake's sample included (ns-3.37's
    /// m_minRtt, which `EstimateRtt` lowers with every measurement, the SYN-ACK's among them).
    pub min_rtt_s: Option<f64>,
    /// The ACK carried ECN-Echo (ns-3's ECN_ECE_RCVD state as PktsAcked reads it).
    pub ece: bool,
}

impl AckedInfo {
    /// An ACK of `acked_pkts` new segments at time 0 with no RTT sample (for algorithms'
    /// unit tests).
    #[cfg(test)]
    pub fn of_segments(acked_pkts: u32) -> Self {
        AckedInfo {
            acked_pkts,
            snd_una: 0,
            snd_max: 0,
            rtt_sample_s: None,
            newest_rtt_s: None,
            now_s: 0.0,
            srtt_s: None,
            min_rtt_s: None,
            ece: false,
        }
    }
}

/// What an algorithm needs of ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnUse {
    /// Works with or without ECN, as the configuration says.
    Optional,
    /// Needs ECN with this feedback; the codepoint is its default.
    Required {
        /// The codepoint it sends unless the configuration says otherwise.
        codepoint: EctCodepoint,
        /// The feedback it reads.
        feedback: EcnFeedback,
    },
}

/// What a rate-based algorithm (ns-3's HasCongControl) reads of the sender and sets: ns-3's
/// TcpSocketState as CongControl, CongestionStateSet and CwndEvent see it.
#[derive(Clone, Copy, Debug)]
pub struct CongControlState {
    /// Congestion window, segments (the algorithm sets it).
    pub cwnd_pkts: f64,
    /// Slow-start threshold, segments (the algorithm sets it).
    pub ssthresh_pkts: f64,
    /// Pacing rate, segments per second (the algorithm sets it).
    pub pacing_rate_pkts_per_s: f64,
    /// MaxPacingRate, segments per second.
    pub max_pacing_rate_pkts_per_s: f64,
    /// Segments each pacing release may send back to back (the algorithm may set it; 1, one
    /// segment per timer as ns-3, unless it does).
    pub pacing_burst_pkts: u32,
    /// Segments in flight (ns-3's m_bytesInFlight as last computed).
    pub in_flight_pkts: u32,
    /// The sender is in fast recovery (CA_RECOVERY).
    pub in_recovery: bool,
    /// The initial window, segments.
    pub initial_cwnd_pkts: u32,
    /// Now, ns.
    pub now_ns: u64,
    /// The latest RTT estimate (ns-3's m_lastRtt: the smoothed RTT), seconds.
    pub srtt_s: Option<f64>,
    /// The smallest RTT estimate so far (ns-3's m_minRtt), seconds.
    pub min_rtt_s: Option<f64>,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// One past the highest segment sent.
    pub snd_max: u32,
    /// The ACK being handled carried ECN-Echo (with per-CE feedback: every segment it newly
    /// acknowledges was CE-marked).
    pub ece: bool,
}

impl CongControlState {
    /// Now, seconds.
    pub fn now_s(&self) -> f64 {
        crate::time::ns_to_s(self.now_ns)
    }
}

/// The moments ns-3.37 hands a rate-based algorithm.
#[derive(Clone, Copy, Debug)]
pub enum CongEvent<'a> {
    /// The connection is open (the first CongestionStateSet(CA_OPEN)).
    Start,
    /// An ACK was processed (CongControl), with its rate sample and the delivery counters.
    Ack(&'a RateSample, &'a RateConnection),
    /// Fast recovery begins (CongestionStateSet(CA_RECOVERY)), after an ACK that delivered
    /// `delivered_pkts` segments.
    EnterRecovery {
        /// Segments the ACK newly acknowledged or SACKed (m_lastAckedSackedBytes).
        delivered_pkts: u32,
    },
    /// A retransmission timeout (CongestionStateSet(CA_LOSS)).
    EnterLoss,
    /// An ECN echo starts a window reduction (the CWR state; Linux's set_state(TCP_CA_CWR),
    /// which ns-3.37 does not pass on).
    EnterCwr,
    /// Fast recovery ended (CwndEvent(CA_EVENT_COMPLETE_CWR)).
    CompleteCwr,
    /// A segment leaves with nothing in flight (CwndEvent(CA_EVENT_TX_START)).
    TxStart,
}

/// A congestion-control algorithm: its state between ACKs and its answers to the sender.
/// Windows are in segments. The provided methods are what an algorithm without those
/// refinements does (no early slow-start exit, cwnd = ssthresh after a cut, no growth on the
/// ACK that ends fast recovery, nothing to reset at a timeout).
pub trait Controller {
    /// What the algorithm needs of ECN (the scenario reader turns ECN on for it and refuses
    /// settings that contradict it).
    const ECN_USE: EcnUse = EcnUse::Optional;

    /// Whether the algorithm sets cwnd and the pacing rate from rate samples itself (ns-3's
    /// HasCongControl): the sender then skips the recovery algorithm's window changes, leaves
    /// the pacing rate alone and calls [`Controller::cong_control`].
    const HAS_CONG_CONTROL: bool = false;

    /// Whether [`Controller::cong_control`] reads the ACK's rate sample beyond the segments it
    /// delivered, lost and found in flight (the delivery rate, its interval, the
    /// application-limited state) or the connection's delivery counters. When false the
    /// sender keeps no per-segment delivery records (its scoreboard counts what each ACK
    /// delivered) and hands over samples that hold those counts alone, with a connection
    /// whose only counter is the delivered one. Only read with
    /// [`Controller::HAS_CONG_CONTROL`].
    const NEEDS_RATE_SAMPLE: bool = true;

    /// Whether [`Controller::on_pkts_acked`] reads [`AckedInfo::newest_rtt_s`] (the sender
    /// then looks up the newest acknowledged segment's send time on every ACK).
    const NEEDS_NEWEST_RTT: bool = false;

    /// The algorithm with its knobs taken from the configuration.
    fn new(cfg: &TcpConfig) -> Self
    where
        Self: Sized;

    /// Every ACK of new data, in any state (ns-3's PktsAcked), before any window change it
    /// brings. Returns Some(new ssthresh, segments) when the algorithm ends slow start (the
    /// sender sets ssthresh to it).
    fn on_pkts_acked(
        &mut self,
        _info: &AckedInfo,
        _cwnd_pkts: f64,
        _ssthresh_pkts: f64,
    ) -> Option<f64> {
        None
    }

    /// Window growth on an ACK of new data outside loss recovery: slow start below ssthresh,
    /// congestion avoidance above (ns-3's IncreaseWindow). Returns the new cwnd.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64;

    /// ssthresh after a loss or ECN echo (ns-3's GetSsThresh), from cwnd or from the
    /// `flight_pkts` segments in flight.
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64;

    /// ssthresh after a loss (fast retransmit or timeout): the same as after an ECN echo
    /// unless the algorithm answers the two differently.
    fn ssthresh_after_loss(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        self.ssthresh_after_congestion(cwnd_pkts, flight_pkts)
    }

    /// cwnd right after a cut to `ssthresh_pkts` on the cumulative-ACK path, before any
    /// fast-recovery inflation: ssthresh itself (RFC 5681 §3.2 step 2).
    fn cwnd_after_congestion(&self, _cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        ssthresh_pkts
    }

    /// Whether the ACK that ends fast recovery also grows the window.
    fn grows_on_recovery_exit(&self) -> bool {
        false
    }

    /// A retransmission timeout happened (ns-3 enters CA_LOSS). Called after
    /// `ssthresh_after_congestion` for the same timeout, as ns-3.37 reduces ssthresh before it
    /// enters the loss state.
    fn on_timeout(&mut self) {}

    /// The sender starts handling an ACK or a timer expiry at `now_s` seconds (what ns-3's
    /// algorithms read as Simulator::Now() in any of their operations).
    fn at_time(&mut self, _now_s: f64) {}

    /// The sender's congestion state became `state` (ns-3's CongestionStateSet, called before
    /// the state is written); `snd_max` is one past the highest segment sent. Not called for
    /// entering or leaving CWR to Open, as ns-3.37 does not call it there.
    fn on_state_change(&mut self, _state: CongState, _snd_max: u32) {}

    /// cwnd or ssthresh the last `on_pkts_acked` or `increase_window` set beyond its return
    /// value, taken once (ns-3.37's algorithms write the socket's window directly: Vegas,
    /// YeAH and LEDBAT lower ssthresh while they grow cwnd, TCP-LP cuts cwnd on an ACK).
    fn take_window_update(&mut self) -> WindowUpdate {
        WindowUpdate::default()
    }

    /// A rate-based algorithm's reaction to `event` (only called when
    /// [`Controller::HAS_CONG_CONTROL`]); it may change cwnd, ssthresh and the pacing rate in
    /// `state`.
    fn cong_control(&mut self, _state: &mut CongControlState, _event: CongEvent<'_>) {}

    /// Hands the algorithm the flow's own random stream (`bbr`/flow), for algorithms that draw.
    fn seed(&mut self, _rng: aqm::Rng) {}
}
