"""Chen, Hu & Ji (2011), self-tuning RED: the model (§3), Figs. 5–7 and Table 1."""
