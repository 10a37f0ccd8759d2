//! The AQMs driven by queueing delay: CoDel, which decides at dequeue from each packet's
//! sojourn time, PIE, whose drop probability follows a delay estimate updated on a timer, and
//! COBALT, CoDel's control law as Linux cake runs it beside BLUE.

pub mod cobalt;
pub mod codel;
pub mod pie;

pub use cobalt::{Cobalt, CobaltParams, CobaltStats};
pub use codel::{CoDel, CoDelParams};
pub use pie::{BurstRule, Pie, PieParams, ShortQueueRule};
