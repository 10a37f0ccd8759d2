"""`aqmlab validate ns3`: the BetaRED dumbbell in ns-3.37 and aqmlab (`suite`), each AQM as an
ns-3 queue disc (`queue_discs`), and the page (`page`)."""
