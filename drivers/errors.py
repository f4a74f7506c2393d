"""Errors raised by the `drivers` package; the CLI turns them into one line and an exit code."""


class DriversError(Exception):
    """A problem the user can fix (bad input, missing resource); its message is one line."""


class ConnectionLostError(DriversError):
    """The connection is gone (server stopped, backend terminated, network): the session can
    not be used again, so a run stops instead of recording every later query as failed."""


class QueryCancelledError(DriversError):
    """The statement was cancelled through :meth:`drivers.engine.Session.cancel` (a query
    timeout); the session stays usable."""
