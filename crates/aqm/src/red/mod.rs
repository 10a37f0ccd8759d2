//! The RED family: Random Early Detection and the algorithms that keep its averaged queue and
//! change how p_max is set. Every one implements [`red_core::RedFamily`] (its drop curve and,
//! if adaptive, its periodic update) and inherits the rest of the AQM contract from
//! [`red_core`]: the averaged queue with its idle-time correction ([`red_average`]) and the
//! drop decision with its spacing and byte mode ([`drop_decision`]). The BetaRED variants
//! ([`crate::beta`]) build on the same core.

pub mod ared;
pub(crate) mod common_params;
pub mod drop_decision;
pub mod random_early_detection;
pub mod red_average;
pub mod red_core;
pub mod red_tuning;
pub mod self_tuning_red;
pub mod step_marking;

pub use ared::{AdaptAt, Ared, AredParams};
pub use drop_decision::Spacing;
pub use random_early_detection::{LinearCurve, Red, RedParams};
pub use self_tuning_red::{SelfTuningRed, SelfTuningRedParams};
pub use step_marking::{StepMarking, StepMarkingParams};
