"""Li et al. (2014), Tables 1–21: eight AQM schemes against each other."""
