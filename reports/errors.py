"""Errors raised by the `reports` package; the CLI turns them into one line and an exit code."""


class ReportsError(Exception):
    """A problem the user can fix (bad input, missing resource); its message is one line."""
