//! Drop tail: accept everything; the host's buffer limit does the dropping.

use crate::contract::{Aqm, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView};
use crate::params::{AqmParams, ParamDoc};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Drop tail has no parameters: the buffer belongs to the port.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DropTailParams {}

impl AqmParams for DropTailParams {
    const AQM: &'static str = "droptail";
    const TITLE: &'static str = "Drop Tail";
    const PARAMS: &'static [ParamDoc] = &[];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(DropTail))
    }
}

/// The baseline with no active management at all.
#[derive(Clone, Debug, Default)]
pub struct DropTail;

impl Aqm for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }

    fn decides_at_dequeue(&self) -> bool {
        false
    }

    fn on_enqueue(&mut self, _: u64, _: PacketView, _: &QueueView, _: &mut Rng) -> EnqueueVerdict {
        EnqueueVerdict::Accept
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }

    fn probe(&self, _out: &mut Vec<f64>) {}
}
