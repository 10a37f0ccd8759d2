"""The model's names that the command line needs before any computation, in a module that
imports nothing heavy: `aqmlab model --help` and `aqmlab run` stay free of numpy."""

DROP_FUNCTIONS = ("red", "gentle", "betared")
"""The drop functions of the model: RED, gentle RED and BetaRED."""
