//! Congestion control: the [`Controller`] trait every algorithm implements, one file per
//! algorithm (`reno.rs`, `bbr.rs` with `bbr_filter.rs`, `cubic.rs` with `hystart.rs`, `bic.rs`,
//! `dctcp.rs`, `hybla.rs`, `linux_reno.rs`, `scalable.rs`, `highspeed.rs`, `htcp.rs`, `illinois.rs`,
//! `ledbat.rs`, `lp.rs`, `prague.rs` with `prague_classic.rs`, `vegas.rs`, `veno.rs`, `westwood.rs`, `yeah.rs`; `rtt_round.rs` holds what
//! Vegas, Veno and YeAH share), the names in `registry.rs`, and [`CongestionControl`], the enum a sender
//! holds, with one variant per registered algorithm.
//! The enum implements the trait by matching on its variant (no boxing, no virtual call); the
//! enum, its construction from [`CcKind`] and every method's match are generated from the
//! registry's list, so an algorithm is added by its file, its `mod` line and its registry line.

pub mod bbr;
mod bbr_filter;
pub mod bic;
mod controller;
pub mod cubic;
pub mod dctcp;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod hystart;
pub mod illinois;
pub mod ledbat;
pub mod linux_reno;
pub mod lp;
pub mod prague;
pub mod prague_classic;
pub mod registry;
pub mod reno;
pub mod rtt_round;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod yeah;

pub use controller::{
    AckedInfo, CongControlState, CongEvent, CongState, Controller, EcnUse, WindowUpdate,
};

use crate::tcp::config::TcpConfig;
use registry::{congestion_controls, CcKind};

/// Defines [`CongestionControl`] over the registered algorithms and its [`Controller`]
/// implementation, each method one match that forwards to the variant's algorithm. The
/// methods are always inlined into the sender: with six algorithms the compiler stopped
/// inlining them, and BetaRED scenario 2 ran 4–14 % slower under most AQMs (`make bench`).
macro_rules! dispatch {
    ($($(#[doc = $doc:literal])* $variant:ident($algorithm:ty) = $name:literal,)*) => {
        /// Congestion control of one flow: the algorithm its configuration names.
        #[derive(Clone, Debug)]
        pub enum CongestionControl {
            $($(#[doc = $doc])* $variant($algorithm),)*
        }

        impl CcKind {
            /// What the algorithm needs of ECN.
            pub fn ecn_use(self) -> EcnUse {
                match self {
                    $(CcKind::$variant => <$algorithm as Controller>::ECN_USE,)*
                }
            }

            /// Whether the algorithm sets cwnd and pacing from rate samples (HasCongControl).
            pub fn has_cong_control(self) -> bool {
                match self {
                    $(CcKind::$variant => <$algorithm as Controller>::HAS_CONG_CONTROL,)*
                }
            }

            /// Whether a rate-based algorithm reads timed rate samples (NEEDS_RATE_SAMPLE).
            pub fn needs_rate_sample(self) -> bool {
                match self {
                    $(CcKind::$variant => <$algorithm as Controller>::NEEDS_RATE_SAMPLE,)*
                }
            }

            /// Whether the algorithm reads each ACK's newest-segment RTT (NEEDS_NEWEST_RTT).
            pub fn needs_newest_rtt(self) -> bool {
                match self {
                    $(CcKind::$variant => <$algorithm as Controller>::NEEDS_NEWEST_RTT,)*
                }
            }
        }

        impl Controller for CongestionControl {
            fn new(cfg: &TcpConfig) -> Self {
                match cfg.cc {
                    $(CcKind::$variant => CongestionControl::$variant(<$algorithm>::new(cfg)),)*
                }
            }

            #[inline(always)]
            fn on_pkts_acked(
                &mut self,
                info: &AckedInfo,
                cwnd_pkts: f64,
                ssthresh_pkts: f64,
            ) -> Option<f64> {
                match self {
                    $(CongestionControl::$variant(c) => {
                        c.on_pkts_acked(info, cwnd_pkts, ssthresh_pkts)
                    })*
                }
            }

            #[inline(always)]
            fn increase_window(
                &mut self,
                info: &AckedInfo,
                cwnd_pkts: f64,
                ssthresh_pkts: f64,
            ) -> f64 {
                match self {
                    $(CongestionControl::$variant(c) => {
                        c.increase_window(info, cwnd_pkts, ssthresh_pkts)
                    })*
                }
            }

            #[inline(always)]
            fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
                match self {
                    $(CongestionControl::$variant(c) => {
                        c.ssthresh_after_congestion(cwnd_pkts, flight_pkts)
                    })*
                }
            }

            #[inline(always)]
            fn ssthresh_after_loss(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
                match self {
                    $(CongestionControl::$variant(c) => {
                        c.ssthresh_after_loss(cwnd_pkts, flight_pkts)
                    })*
                }
            }

            #[inline(always)]
            fn cwnd_after_congestion(&self, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
                match self {
                    $(CongestionControl::$variant(c) => {
                        c.cwnd_after_congestion(cwnd_pkts, ssthresh_pkts)
                    })*
                }
            }

            #[inline(always)]
            fn grows_on_recovery_exit(&self) -> bool {
                match self {
                    $(CongestionControl::$variant(c) => c.grows_on_recovery_exit(),)*
                }
            }

            #[inline(always)]
            fn on_timeout(&mut self) {
                match self {
                    $(CongestionControl::$variant(c) => c.on_timeout(),)*
                }
            }

            #[inline(always)]
            fn at_time(&mut self, now_s: f64) {
                match self {
                    $(CongestionControl::$variant(c) => c.at_time(now_s),)*
                }
            }

            #[inline(always)]
            fn on_state_change(&mut self, state: CongState, snd_max: u32) {
                match self {
                    $(CongestionControl::$variant(c) => c.on_state_change(state, snd_max),)*
                }
            }

            #[inline(always)]
            fn take_window_update(&mut self) -> WindowUpdate {
                match self {
                    $(CongestionControl::$variant(c) => c.take_window_update(),)*
                }
            }

            fn cong_control(&mut self, state: &mut CongControlState, event: CongEvent<'_>) {
                match self {
                    $(CongestionControl::$variant(c) => c.cong_control(state, event),)*
                }
            }

            fn seed(&mut self, rng: aqm::Rng) {
                match self {
                    $(CongestionControl::$variant(c) => c.seed(rng),)*
                }
            }
        }
    };
}

congestion_controls!(dispatch);
