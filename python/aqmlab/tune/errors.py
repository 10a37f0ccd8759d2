"""The error of a tuning study that cannot be run as asked, in a module of its own that loads
nothing, so that the command line can catch it without loading the tuner."""


class TuneError(ValueError):
    """A tuning study that cannot be run as asked; the message is one line naming the option
    or the file and what is allowed."""
