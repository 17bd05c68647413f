"""No import circles in the package (issue 27): the graph of which module imports which, over
monkey_env/ and agents/ (monkey_env.agents), imports inside functions included, has no cycle.

A circle hides which module is below which: each side can only import the other inside a
function, and a change to either breaks the other at run time. Imports under
``if TYPE_CHECKING:`` are annotations only and left out; ``from package import module`` is an
edge to the module (the package's ``__init__`` runs first for any of its modules anyway).
"""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = ((REPO / "monkey_env", "monkey_env"), (REPO / "agents", "monkey_env.agents"))


def modules() -> dict[str, Path]:
    found = {}
    for root, package in ROOTS:
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if root.name == "monkey_env" and rel.parts[0] == "agents":   # the link to agents/, read once
                continue
            parts = [package, *rel.with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(tree) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def imports_of(name: str, path: Path, known) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[:len(here) - node.level + 1] + [node.module or ""]).strip(".") if node.level \
                else node.module or ""
            submodules = {f"{base}.{a.name}" for a in node.names} & set(known)
            out |= submodules
            if base in known and len(submodules) < len(node.names):     # a name defined in the module itself
                out.add(base)
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_package_has_no_import_circles():
    graph = import_graph()
    assert len(graph) > 100 and "monkey_env.agents.registry" in graph and "monkey_env.apps.results_table" in graph
    circles = {" <-> ".join(c): {m: sorted(graph[m] & set(c)) for m in c} for c in cycles(graph)}
    assert not circles, f"import circles (module: what it imports of the circle): {circles}"


def test_the_check_sees_a_circle_inside_functions(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n")
    b.write_text("def f():\n    from pkg import a\n    return a\n")
    known = {"pkg.a": a, "pkg.b": b}
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    assert graph == {"pkg.a": set(), "pkg.b": {"pkg.a"}}            # annotations only: no edge
    a.write_text("def g():\n    from pkg.b import f\n    return f\n")
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
