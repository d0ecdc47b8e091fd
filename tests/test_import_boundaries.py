"""The floors of the code, and imports that only run down (ARCHITECTURE.md draws them).

Every import statement of the product's code (module level or inside a function, as the AST
sees it) is checked against the floor of the importing module: it may import its own floor's
package, any floor below it, and the stand-alone packages that sit under everything
(``warehouse``, which imports nothing of pricewatch). There are no waivers: a new module
belongs to a floor, or the test fails and names the import that runs up.

    record      pricewatch.record          the offer record, the catalog + its YAML, prices, text, config
    evidence    pricewatch.evidence        WARC/WACZ write, read, the replay index, lookup
    spiders     spiders                    one module per provider (imports record and evidence only)
    collect     pricewatch.collect         crawl processes, judging, the quality gate, sources
    claims      pricewatch.claims          the claims engine (beside collect; neither imports the other)
    output      pricewatch.alerts, .reports, .export
    flows       flows                      the Prefect flows
    server      pricewatch.server          `pricewatch serve`, the run's own Prefect server, signals
    cli         pricewatch.cli             the `pricewatch` command
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: floor name -> (its rank, the packages it is made of). A module may import a package of a
#: floor of lower rank, or of its own floor only when that package is its own.
FLOORS: dict[str, tuple[int, tuple[str, ...]]] = {
    "warehouse": (0, ("warehouse",)),
    "record": (1, ("pricewatch.record",)),
    "evidence": (2, ("pricewatch.evidence",)),
    "spiders": (3, ("spiders",)),
    "collect": (4, ("pricewatch.collect",)),
    "claims": (4, ("pricewatch.claims",)),
    "output": (5, ("pricewatch.alerts", "pricewatch.reports", "pricewatch.export")),
    "flows": (6, ("flows",)),
    "server": (7, ("pricewatch.server",)),
    "cli": (8, ("pricewatch.cli",)),
}
#: Exceptions to "any floor below": what a floor may NOT import although it is lower.
NOT_ALLOWED = {
    "warehouse": {"record", "evidence", "spiders"},     # warehouse/ imports nothing of pricewatch
    "record": {"warehouse"},                           # the record is plain data: no DuckDB
    "spiders": {"warehouse"},                          # spiders know record and evidence only
    "claims": {"spiders"},                             # claims read the warehouse, never a spider
    "output": {"spiders"},
}
#: Folders of product code and the package each one's modules are named by.
CODE = ("pricewatch", "spiders", "flows", "warehouse")


def floor_of(module: str) -> str | None:
    best = None
    for name, (_, packages) in FLOORS.items():
        for pkg in packages:
            if module == pkg or module.startswith(pkg + "."):
                if best is None or len(pkg) > len(best[1]):
                    best = (name, pkg)
    return best and best[0]


def package_of(module: str) -> str | None:
    for _, packages in FLOORS.values():
        for pkg in packages:
            if module == pkg or module.startswith(pkg + "."):
                return pkg
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def product_modules() -> list[Path]:
    return sorted(p for top in CODE for p in (ROOT / top).rglob("*.py"))


def imports_of(path: Path, here: str) -> list[tuple[int, str]]:
    """(line, module) of every import of a project package in a file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from pricewatch.collect import gate` imports pricewatch.collect.gate
            out += [(node.lineno, f"{mod}.{a.name}" if floor_of(f"{mod}.{a.name}") else mod) for a in node.names]
    return [(line, m) for line, m in out if m.split(".")[0] in CODE]


def violations(modules: list[tuple[Path, str]] | None = None) -> list[str]:
    found = []
    for path, here in modules or [(p, module_name(p)) for p in product_modules()]:
        if here == "pricewatch":     # the root package: a docstring, nothing to import
            continue
        mine = floor_of(here)
        rel = here
        if mine is None:
            found.append(f"{rel}: belongs to no floor (pricewatch/ holds only the floors' packages)")
            continue
        rank = FLOORS[mine][0]
        for line, target in imports_of(path, here):
            theirs = floor_of(target)
            if theirs is None:
                found.append(f"{rel}:{line}: imports {target}, which belongs to no floor")
            elif theirs == mine:
                if package_of(target) != package_of(here):
                    found.append(f"{rel}:{line}: imports {target} across the {mine} floor")
            elif FLOORS[theirs][0] >= rank or theirs in NOT_ALLOWED.get(mine, ()):
                found.append(f"{rel}:{line}: {mine} imports {target} ({theirs}): imports only run down")
    return found


def test_every_import_runs_down():
    assert violations() == []


def test_pricewatch_root_holds_only_the_floors():
    root = ROOT / "pricewatch"
    modules = sorted(p.name for p in root.glob("*.py"))
    assert modules == ["__init__.py"]
    packages = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    declared = {pkg.split(".")[1] for _, pkgs in FLOORS.values() for pkg in pkgs if pkg.startswith("pricewatch.")}
    assert packages == declared


@pytest.mark.parametrize("source, expected", [
    ("from warehouse import db\n", None),               # allowed: warehouse is below everything
    ("def f():\n    from flows import nightly\n", "imports only run down"),
    ("from pricewatch.claims import rules\n", "imports only run down"),    # collect and claims are one floor apart
    ("from pricewatch.collect import gate\n", None),
    ("from pricewatch.cli.main import app\n", "imports only run down"),
])
def test_the_checker_sees_an_import_that_runs_up(tmp_path, source, expected):
    """The checker itself can fail: a probe module of the collect floor with one import."""
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    found = violations([(probe, "pricewatch.collect.probe")])
    assert (found == []) if expected is None else (len(found) == 1 and expected in found[0])


def test_warehouse_imports_nothing_of_pricewatch():
    found = [f"{module_name(p)}:{line} {m}" for p in (ROOT / "warehouse").rglob("*.py")
             for line, m in imports_of(p, module_name(p)) if not m.startswith("warehouse")]
    assert found == []
