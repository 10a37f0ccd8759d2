//! The AQMs driven by queueing delay: CoDel, which decides at dequeue from each packet's
//! sojourn time, and PIE, whose drop probability follows a delay estimate updated on a timer.

pub mod codel;
pub mod pie;

pub use codel::{CoDel, CoDelParams};
pub use pie::{BurstRule, Pie, PieParams, ShortQueueRule};
