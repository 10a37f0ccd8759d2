"""`aqmlab validate ns2`: Li 2014's single bottleneck (`suite`) and Chen 2011's ECN dumbbell
(`chen2011`) in ns-2.35 and aqmlab."""
