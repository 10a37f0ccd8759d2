//! The congestion controls by name: the one list an algorithm is registered in. Each line
//! gives the variant, the type in `cc` that implements [`super::controller::Controller`] and
//! the name a scenario writes as `tcp.cc`. [`CcKind`] (what a configuration holds), the
//! scenario reader's allowed values, the canonical writer and `aqmlab list` take the names
//! from here, and `cc/mod.rs` builds the dispatch over the algorithms from the same list.

use serde::Serialize;

/// Hands every registered congestion control, as `Variant(module::Type) = "name",` after its
/// doc comment (what it is and its source, which `aqmlab list` prints), to the macro `$then`.
macro_rules! congestion_controls {
    ($then:ident) => {
        $then! {
            /// Reno/NewReno AIMD (RFC 5681, RFC 6582).
            Reno(reno::Reno) = "reno",
            /// CUBIC (RFC 9438).
            Cubic(cubic::Cubic) = "cubic",
            /// BIC TCP (Xu, Harfoush and Rhee 2004; ns-3.37 TcpBic).
            Bic(bic::Bic) = "bic",
            /// TCP Hybla (Caini and Firrincieli 2004; ns-3.37 TcpHybla).
            Hybla(hybla::Hybla) = "hybla",
            /// Reno with Linux's window arithmetic (ns-3.37 TcpLinuxReno).
            LinuxReno(linux_reno::LinuxReno) = "linux_reno",
            /// Scalable TCP (Kelly 2003; ns-3.37 TcpScalable).
            Scalable(scalable::Scalable) = "scalable",
            /// DCTCP (RFC 8257; ns-3.37 TcpDctcp).
            Dctcp(dctcp::Dctcp) = "dctcp",
            /// HighSpeed TCP (RFC 3649; ns-3.37 TcpHighSpeed).
            HighSpeed(highspeed::HighSpeed) = "highspeed",
            /// H-TCP (Leith and Shorten 2004; ns-3.37 TcpHtcp).
            Htcp(htcp::Htcp) = "htcp",
            /// TCP-Illinois (Liu, Başar and Srikant 2008; ns-3.37 TcpIllinois).
            Illinois(illinois::Illinois) = "illinois",
            /// LEDBAT (RFC 6817; ns-3.37 TcpLedbat).
            Ledbat(ledbat::Ledbat) = "ledbat",
            /// TCP-LP (Kuzmanovic and Knightly 2006; ns-3.37 TcpLp).
            Lp(lp::Lp) = "lp",
            /// TCP Vegas (Brakmo and Peterson 1995; ns-3.37 TcpVegas).
            Vegas(vegas::Vegas) = "vegas",
            /// TCP Veno (Fu and Liew 2003; ns-3.37 TcpVeno).
            Veno(veno::Veno) = "veno",
            /// TCP Westwood+ (Grieco and Mascolo 2004; ns-3.37 TcpWestwood, WestwoodPlus).
            WestwoodPlus(westwood::WestwoodPlus) = "westwood_plus",
            /// YeAH-TCP (Baiocchi, Castellani and Vacirca 2007; ns-3.37 TcpYeah).
            Yeah(yeah::Yeah) = "yeah",
            /// BBR version 1 (Cardwell et al. 2016; ns-3.37 TcpBbr).
            Bbr(bbr::Bbr) = "bbr",
            /// TCP Prague (draft-briscoe-iccrg-prague-congestion-control; L4S team's Linux
            /// tcp_prague.c).
            Prague(prague::Prague) = "prague",
        }
    };
}
pub(super) use congestion_controls;

/// Defines [`CcKind`] with one variant per registered algorithm, and its names.
macro_rules! cc_kind {
    ($($(#[doc = $doc:literal])* $variant:ident($algorithm:ty) = $name:literal,)*) => {
        /// Congestion-control algorithm, one variant per registered algorithm.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        pub enum CcKind {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)*
        }

        impl CcKind {
            /// Names as written in scenarios, in the order registered.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// The name as written in scenarios.
            pub fn name(self) -> &'static str {
                match self {
                    $(CcKind::$variant => $name,)*
                }
            }

            /// What the algorithm is and where it comes from: its registry line's doc comment.
            pub fn source(self) -> &'static str {
                match self {
                    $(CcKind::$variant => concat!($($doc),*).trim(),)*
                }
            }

            /// The algorithm called `name`.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(CcKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

congestion_controls!(cc_kind);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in CcKind::NAMES {
            assert_eq!(CcKind::from_name(name).map(CcKind::name), Some(*name));
        }
        assert_eq!(CcKind::from_name(""), None);
    }

    #[test]
    fn every_algorithm_names_its_source() {
        assert_eq!(
            CcKind::Dctcp.source(),
            "DCTCP (RFC 8257; ns-3.37 TcpDctcp)."
        );
        for name in CcKind::NAMES {
            let source = CcKind::from_name(name).unwrap().source();
            assert!(
                source.ends_with(").") && !source.starts_with(' '),
                "{source}"
            );
        }
    }
}
