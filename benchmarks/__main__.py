"""Run every benchmark module (or those named on the command line) and print one table."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.rows import BenchRow


def _modules(selected: list[str]) -> list[str]:
    here = Path(__file__).parent
    names = sorted(info.name for info in pkgutil.iter_modules([str(here)]) if info.name.startswith("bench_"))
    return [name for name in names if not selected or any(s in name for s in selected)]


def main(argv: list[str]) -> int:
    rows: list[BenchRow] = []
    console = Console()
    for name in _modules(argv):
        console.print(f"[bold]running {name}[/bold]")
        module = importlib.import_module(f"benchmarks.{name}")
        rows.extend(module.run())
    table = Table(title="treebrain benchmarks")
    for column in ("benchmark", "case", "value", "unit", "goal", "ok"):
        table.add_column(column)
    for row in rows:
        ok = "" if row.passed is None else ("yes" if row.passed else "NO")
        table.add_row(row.benchmark, row.case, f"{row.value:,.3f}", row.unit, row.goal, ok)
    console.print(table)
    return 1 if any(row.passed is False for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
