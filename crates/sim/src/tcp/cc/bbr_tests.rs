//! BBR's state machine, gains and window rules, driven by hand-made rate samples.

use super::*;
use crate::tcp::rate_sample::RateConnection;

const MS: u64 = 1_000_000;

fn cfg() -> TcpConfig {
    TcpConfig::preset("ns3").unwrap()
}

/// A sender state at `now_ns` with a 100 ms RTT estimate.
fn state(now_ns: u64, in_flight_pkts: u32) -> CongControlState {
    CongControlState {
        cwnd_pkts: 10.0,
        ssthresh_pkts: f64::INFINITY,
        pacing_rate_pkts_per_s: 0.0,
        max_pacing_rate_pkts_per_s: 1e9,
        pacing_burst_pkts: 1,
        in_flight_pkts,
        in_recovery: false,
        initial_cwnd_pkts: 10,
        now_ns,
        srtt_s: Some(0.1),
        min_rtt_s: Some(0.1),
        snd_una: 0,
        snd_max: 0,
        ece: false,
    }
}

/// A started BBR and its sender state.
fn started() -> (Bbr, CongControlState) {
    let mut b = Bbr::new(&cfg());
    b.seed(Rng::stream(1, "bbr", 0));
    let mut st = state(0, 0);
    b.cong_control(&mut st, CongEvent::Start);
    (b, st)
}

/// One ACK that starts a new round: `acked` segments delivered at `rate` segments/s.
fn round(b: &mut Bbr, st: &mut CongControlState, now_ns: u64, rate: f64, acked: u32) {
    let prior = b.delivered_pkts;
    let rs = RateSample {
        delivery_rate_pkts_per_s: rate,
        delivered_pkts: i64::from(acked),
        prior_delivered_pkts: prior,
        prior_ns: Some(0),
        acked_sacked_pkts: acked,
        prior_in_flight_pkts: st.in_flight_pkts,
        ..RateSample::default()
    };
    let rc = RateConnection {
        delivered_pkts: prior + u64::from(acked),
        ..RateConnection::default()
    };
    st.now_ns = now_ns;
    b.cong_control(st, CongEvent::Ack(&rs, &rc));
}

#[test]
fn startup_paces_at_high_gain_from_the_initial_window() {
    let (b, st) = started();
    assert_eq!(b.mode(), Mode::Startup);
    assert_eq!(b.gains(), (HIGH_GAIN, HIGH_GAIN));
    // Nominal bandwidth: 10 segments per 100 ms; pacing rate 2.89 times that.
    assert!((st.pacing_rate_pkts_per_s - 2.89 * 100.0).abs() < 1e-9);
    assert!((HIGH_GAIN - 2.0 / std::f64::consts::LN_2).abs() < 0.01);
}

#[test]
fn startup_grows_cwnd_by_what_is_delivered() {
    let (mut b, mut st) = started();
    st.in_flight_pkts = 10;
    round(&mut b, &mut st, 100 * MS, 100.0, 5);
    assert_eq!(st.cwnd_pkts, 15.0);
    round(&mut b, &mut st, 200 * MS, 100.0, 5);
    assert_eq!(st.cwnd_pkts, 20.0);
    // Above the target, 2.89 · 100/s · 0.1 s + 3 = 31.9, and past the initial window's
    // worth of deliveries, cwnd no longer grows.
    st.cwnd_pkts = 40.0;
    round(&mut b, &mut st, 300 * MS, 100.0, 5);
    assert_eq!(st.cwnd_pkts, 40.0);
    assert_eq!(b.mode(), Mode::Startup);
}

#[test]
fn three_rounds_without_growth_end_startup_then_drain_then_probe_bw() {
    let (mut b, mut st) = started();
    st.in_flight_pkts = 500;
    // Growth of 25 % or more keeps Startup going.
    round(&mut b, &mut st, 100 * MS, 500.0, 10);
    round(&mut b, &mut st, 200 * MS, 700.0, 10);
    round(&mut b, &mut st, 300 * MS, 1000.0, 10);
    // Three rounds below 1.25 · 1000/s: the pipe is full.
    round(&mut b, &mut st, 400 * MS, 1100.0, 10);
    round(&mut b, &mut st, 500 * MS, 1100.0, 10);
    assert_eq!(b.mode(), Mode::Startup);
    round(&mut b, &mut st, 600 * MS, 1100.0, 10);
    assert_eq!(b.mode(), Mode::Drain);
    assert!((b.gains().0 - 1.0 / HIGH_GAIN).abs() < 1e-12);
    // ssthresh = one BDP + 3 quanta: 1100/s · 0.1 s + 3.
    assert!((st.ssthresh_pkts - 113.0).abs() < 1e-9);
    // Drain lasts while more than one BDP is in flight.
    round(&mut b, &mut st, 700 * MS, 1100.0, 10);
    assert_eq!(b.mode(), Mode::Drain);
    st.in_flight_pkts = 100;
    round(&mut b, &mut st, 800 * MS, 1100.0, 10);
    assert_eq!(b.mode(), Mode::ProbeBw);
    let (pacing, cwnd_gain) = b.gains();
    assert_eq!(cwnd_gain, 2.0);
    assert!(
        pacing == 1.25 || pacing == 1.0,
        "never starts in the 3/4 phase"
    );
    // cwnd is capped at the target once the pipe is full: 2 · 110 + 3 (+ 2 in the 5/4
    // phase) + the ACK-aggregation allowance (at most 10 segments here).
    assert!(st.cwnd_pkts <= 2.0 * 110.0 + 3.0 + 2.0 + 10.0 + 1e-9);
}

/// A BBR in ProbeBW with BtlBw 1000/s and RTprop 100 ms.
fn in_probe_bw() -> (Bbr, CongControlState) {
    let (mut b, mut st) = started();
    st.in_flight_pkts = 50;
    for k in 1..=5 {
        round(&mut b, &mut st, k * 100 * MS, 1000.0, 10);
    }
    assert_eq!(b.mode(), Mode::ProbeBw);
    (b, st)
}

#[test]
fn probe_bw_cycles_the_pacing_gain_once_per_rtprop() {
    let (mut b, mut st) = in_probe_bw();
    let mut gains = vec![b.gains().0];
    let mut t = 500 * MS;
    for _ in 0..16 {
        // 101 ms later a phase of one RTprop is over; in flight at 1.25 BDP + 5 ends 5/4,
        // at one BDP ends 3/4.
        t += 101 * MS;
        st.in_flight_pkts = 130;
        round(&mut b, &mut st, t, 1000.0, 10);
        gains.push(b.gains().0);
    }
    let i = gains.iter().position(|&g| g == 1.25).unwrap();
    assert_eq!(gains[i + 1], 0.75);
    assert!(gains[i + 2..i + 8].iter().all(|&g| g == 1.0));
    assert_eq!(gains[i + 8], 1.25);
}

#[test]
fn probe_rtt_after_ten_seconds_holds_four_segments_for_200_ms() {
    let (mut b, mut st) = in_probe_bw();
    st.cwnd_pkts = 200.0;
    // RTprop was last refreshed at 500 ms; the RTT estimate stays above it.
    st.srtt_s = Some(0.12);
    round(&mut b, &mut st, 10_400 * MS, 1000.0, 10);
    assert_eq!(b.mode(), Mode::ProbeBw);
    st.in_flight_pkts = 200;
    round(&mut b, &mut st, 10_600 * MS, 1000.0, 10);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    assert_eq!(b.gains(), (1.0, 1.0));
    assert_eq!(st.cwnd_pkts, 4.0);
    // The 200 ms start once no more than 4 segments are in flight.
    st.in_flight_pkts = 4;
    round(&mut b, &mut st, 10_700 * MS, 1000.0, 4);
    round(&mut b, &mut st, 10_850 * MS, 1000.0, 4);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    round(&mut b, &mut st, 10_901 * MS, 1000.0, 4);
    assert_eq!(b.mode(), Mode::ProbeBw);
    // cwnd is back where it was before ProbeRTT.
    assert!(st.cwnd_pkts >= 200.0);
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    let (mut b, mut st) = in_probe_bw();
    st.cwnd_pkts = 150.0;
    st.in_flight_pkts = 120;
    b.cong_control(&mut st, CongEvent::EnterRecovery { delivered_pkts: 2 });
    // cwnd = in flight + what the ACK delivered.
    assert_eq!(st.cwnd_pkts, 122.0);
    // GetSsThresh only saves cwnd; ssthresh stays.
    let ssthresh = st.ssthresh_pkts;
    assert_eq!(b.ssthresh_after_congestion(122.0, 120), ssthresh);
    st.in_recovery = true;
    // An ACK in the same round: 3 lost, 1 delivered, 110 in flight: max(122 − 3, 111).
    st.in_flight_pkts = 110;
    let rs = RateSample {
        delivery_rate_pkts_per_s: 1000.0,
        delivered_pkts: 1,
        prior_delivered_pkts: 0,
        prior_ns: Some(0),
        acked_sacked_pkts: 1,
        lost_pkts: 3,
        ..RateSample::default()
    };
    let rc = RateConnection {
        delivered_pkts: b.delivered_pkts + 1,
        ..RateConnection::default()
    };
    b.cong_control(&mut st, CongEvent::Ack(&rs, &rc));
    assert_eq!(st.cwnd_pkts, 119.0);
    b.cong_control(&mut st, CongEvent::CompleteCwr);
    assert_eq!(st.cwnd_pkts, 150.0);
}

#[test]
fn the_probe_bw_phase_comes_from_the_flow_stream() {
    let phase = |seed| {
        let mut b = Bbr::new(&cfg());
        b.seed(Rng::stream(seed, "bbr", 0));
        b.enter_probe_bw(0);
        b.cycle_index
    };
    let phases: Vec<usize> = (0..64).map(phase).collect();
    assert!(phases.iter().all(|&i| i != 1 && i != 2));
    assert!(phases.contains(&0) && phases.contains(&3) && phases.contains(&7));
    assert_eq!(phase(5), phase(5));
}
