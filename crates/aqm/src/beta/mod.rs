//! The BetaRED family (Giménez et al. 2022): RED with its linear drop curve replaced by
//! p_max·I_z(α, β), a regularized incomplete beta function ([`beta_curve`]), with cheap bounds
//! on it that settle most drop decisions ([`beta_bounds`]). BetaRED sets the curve by hand;
//! ABetaRED adapts p_max and DBetaRED moves the curve's target, both from a target delay and
//! the link ([`adaptive_beta`]). All of them run on the RED family's core ([`crate::red`]).

pub mod abetared;
pub mod adaptive_beta;
pub mod beta_bounds;
pub mod beta_curve;
pub mod betared;
pub mod dbetared;

pub use abetared::{ABetaRed, ABetaRedParams};
pub use beta_curve::BetaCurve;
pub use betared::{BetaRed, BetaRedParams};
pub use dbetared::{DBetaRed, DBetaRedParams};
