"""The BetaRED paper (Giménez et al., Applied Sciences 12, 11176, 2022), Figs. 3–9."""
