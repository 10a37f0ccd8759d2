//! TCP: a sender and a receiver per flow, with congestion control behind one trait (`cc/`),
//! SACK loss recovery (RFC 6675) with PRR (RFC 6937), ns-2's Sack1, or cumulative-ACK recovery
//! (NewReno, classic Reno). Sequence numbers count whole segments; every data packet carries one full
//! segment.

pub mod cc;
pub mod config;
mod cong_control;
pub mod pacing;
pub mod prr;
pub mod rate_sample;
pub mod receiver;
mod recovery_newreno;
mod recovery_sack;
mod recovery_sack1;
pub mod rtt;
mod sack1_state;
pub mod sack_list;
pub mod scoreboard;
pub mod sender;
