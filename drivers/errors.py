"""Errors raised by the `drivers` package; the CLI turns them into one line and an exit code."""


class DriversError(Exception):
    """A problem the user can fix (bad input, missing resource); its message is one line."""
