//! Special functions the AQMs need, in `f64`, free of overflow for large arguments.
//!
//! - [`ln_gamma()`]: ln Γ(x), Stirling's series for large x, a ζ-series for small x.
//! - [`ln_beta()`]: ln B(a, b), with the large-argument cancellation of ln Γ(a) + ln Γ(b) −
//!   ln Γ(a + b) removed as in DiDonato & Morris (1992), TOMS 708.
//! - [`beta_inc_reg()`]: the regularized incomplete beta function I_x(a, b), the distribution
//!   function of the Beta(a, b) law (BetaRED's drop curve).

pub mod incomplete_beta;
pub mod ln_gamma;

pub use incomplete_beta::{beta_inc_reg, ln_beta};
pub use ln_gamma::ln_gamma;
