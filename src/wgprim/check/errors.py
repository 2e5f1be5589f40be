"""Errors raised by the WGSL checker."""
from __future__ import annotations


class WgslSyntaxError(ValueError):
    """A WGSL source that does not parse. Formats as `file:line:col: error: message`."""

    def __init__(self, message: str, line: int, column: int, path: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.path = path

    def __str__(self) -> str:
        return f"{self.path or '<stdin>'}:{self.line}:{self.column}: error: {self.message}"
