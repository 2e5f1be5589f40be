"""A finding: one rule violated at one place."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    severity: str  # "error" or "warning"
    message: str
    hint: str

    def to_dict(self) -> dict:
        return asdict(self)

    def format(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.rule}: {self.message}\n  hint: {self.hint}"
