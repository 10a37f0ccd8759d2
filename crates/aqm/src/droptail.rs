//! Drop tail: accept everything; the host's buffer limit does the dropping.

use crate::contract::{Aqm, EnqueueVerdict, PacketView, QueueView};
use crate::rng::Rng;

/// The baseline with no active management at all.
#[derive(Clone, Debug, Default)]
pub struct DropTail;

impl Aqm for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }

    fn on_enqueue(&mut self, _: u64, _: PacketView, _: &QueueView, _: &mut Rng) -> EnqueueVerdict {
        EnqueueVerdict::Accept
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }

    fn probe(&self, _out: &mut Vec<f64>) {}
}
