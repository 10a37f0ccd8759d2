"""Figures and views: a sweep's or a reproduction's figures in the papers' layouts
(`plots`), the figure of one run (`run_plots`), BetaRED's drop curves (`curves`) and the
side-by-side table of runs (`compare`)."""
