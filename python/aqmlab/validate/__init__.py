"""Validation against the reference simulators: the comparison every validation shares
(`common`), ns-2.35 (`ns2`) and ns-3.37 (`ns3`)."""
