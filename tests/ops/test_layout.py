"""The package layout stays true: the top-level packages form no circle, and the product
imports neither the dev kit (devkit/novo_dev: the stand-ins, the demo, the playground) nor
a test tool.

Read from the code's own imports (function-level and `TYPE_CHECKING` ones
too, since a lazy import is still a dependency), counting each `bot.<package>`
and each single module at `bot/` as one node.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
NOT_PRODUCT = frozenset({"novo_dev", "tests", "bench", "playwright", "pytest", "hypothesis"})
"""Top-level modules nothing in `bot` may import: the dev kit, the tests and test tools."""


def _node(module: str, root: Path) -> str | None:
    parts = module.split(".")
    if parts[0] != "bot" or len(parts) < 2:
        return None
    return parts[1] if (root / parts[1]).is_dir() or (root / f"{parts[1]}.py").is_file() else None


def _imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            # `from bot import runtime` names a module of `bot` itself
            if node.module == "bot":
                yield from (f"bot.{alias.name}" for alias in node.names)


def import_graph(root: Path = BOT) -> dict[str, dict[str, set[str]]]:
    """node → node it imports → the files that do so."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path in sorted(root.rglob("*.py")):
        source = path.relative_to(root).parts[0].removesuffix(".py")
        if source == "__init__":
            continue
        for module in _imports(path):
            target = _node(module, root)
            if target is not None and target != source:
                edges = graph.setdefault(source, {})
                edges.setdefault(target, set()).add(str(path.relative_to(root.parent)))
    return graph


def cycles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """Each circle found by a depth-first walk, as the path that closes it."""
    found: list[list[str]] = []
    state: dict[str, str] = {}  # "open" while on the walk's path, "done" after

    def walk(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph.get(node, {})):
            if state.get(target) == "open":
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target, [*path, target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return found


def _described(graph: dict[str, dict[str, set[str]]], circle: list[str]) -> str:
    hops = itertools.pairwise(circle)
    return " → ".join(circle) + "".join(
        f"\n  {a} → {b}: {', '.join(sorted(graph[a][b])[:3])}" for a, b in hops
    )


def test_the_top_level_packages_form_no_circle() -> None:
    graph = import_graph()
    assert "bridge" in graph and "services" in graph["bridge"]  # the walk sees imports
    found = cycles(graph)
    assert not found, "\n".join(_described(graph, circle) for circle in found)


def foreign_imports(root: Path = BOT) -> dict[str, set[str]]:
    """file under `root` → the top-level modules of NOT_PRODUCT it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        wrong = {m.split(".")[0] for m in _imports(path)} & NOT_PRODUCT
        if wrong:
            found[str(path.relative_to(root.parent))] = wrong
    return found


def test_the_product_imports_no_stand_in_and_no_test_tool() -> None:
    wrong = foreign_imports()
    assert not wrong, wrong
    stand_ins = {"sim", "localslack", "demo", "playground"}
    assert not {p.name for p in BOT.iterdir()} & stand_ins, "a stand-in is back in bot/"


def test_the_walk_finds_a_circle_and_a_foreign_import(tmp_path: Path) -> None:
    """The checks above are only as good as the walk: on a made-up tree it must see both."""
    (tmp_path / "bot" / "alpha").mkdir(parents=True)
    (tmp_path / "bot" / "alpha" / "a.py").write_text(
        "def later() -> None:\n    from bot.beta import b\n"
    )
    (tmp_path / "bot" / "beta.py").write_text(
        "from bot.alpha.a import later\nimport novo_dev.sim\n"
    )
    (tmp_path / "bot" / "gamma.py").write_text(
        "def lazily() -> None:\n    from playwright.async_api import Page\n"
    )
    graph = import_graph(tmp_path / "bot")
    assert cycles(graph) == [["alpha", "beta", "alpha"]]
    assert foreign_imports(tmp_path / "bot") == {
        "bot/beta.py": {"novo_dev"},
        "bot/gamma.py": {"playwright"},
    }


PUBLISHER = "bot.messages.publisher"
"""Who keeps the messages: services ask through `bot.messages` (`Refresh`, `Messages`)."""


def _named_modules(path: Path) -> Iterator[str]:
    """`_imports`, and each `from package import name` as `package.name` (a module too)."""
    yield from _imports(path)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def importers_of(module: str, under: Path) -> list[str]:
    """Files under `under` importing `module` (or a name from it), lazily or not."""
    return [
        str(path.relative_to(BOT.parent))
        for path in sorted(under.rglob("*.py"))
        if any(m == module or m.startswith(f"{module}.") for m in _named_modules(path))
    ]


def test_no_service_imports_the_publisher() -> None:
    assert importers_of(PUBLISHER, BOT / "services") == []
    assert importers_of(PUBLISHER, BOT / "bridge"), "the walk sees who does import it"
