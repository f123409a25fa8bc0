"""The project's layers, read from its source: no import cycles, the domain below the API.

Every import statement of the project's apps is parsed (module level and inside functions
alike). No module may reach itself through the modules it imports, and the modules of the
domain (`models`, `services`, `selectors`, `rules`, `tasks`, `representations`) must import
no module of an `api` package (docs/architecture.md).
"""

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPS = ("accounts", "appointments", "config", "demo", "favorites", "listings", "media_app")
APPS += ("notifications",)
DOMAIN = {"models", "services", "selectors", "rules", "tasks", "representations"}


def project_modules() -> dict[str, Path]:
    """Every module of the project's apps (migrations aside) by its dotted name."""
    modules = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_names(name: str, path: Path) -> set[str]:
    """The dotted names a module imports, relative imports resolved."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def module_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which project modules each project module imports (an imported name is the module it
    names, or the closest module containing it)."""
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(name, path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or not (the strongly
    connected components of more than one module), each sorted."""
    order: dict[str, int] = {}
    reach: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(module: str) -> None:
        order[module] = reach[module] = len(order)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in order:
                visit(target)
                reach[module] = min(reach[module], reach[target])
            elif target in stack:
                reach[module] = min(reach[module], order[target])
        if reach[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return sorted(found)


def is_api(name: str) -> bool:
    return "api" in name.split(".")


def test_the_parser_sees_imports_of_every_kind(tmp_path):
    # given a module with plain, from, relative and nested imports
    package = tmp_path / "shop"
    package.mkdir()
    module = package / "services.py"
    module.write_text(
        "import shop.api.views\n"
        "from shop.models import Item\n"
        "from .api import serializers\n"
        "def later():\n"
        "    from ..other.api.fields import Field\n"
    )

    # when its imports are read
    names = imported_names("store.shop.services", module)

    # then each is named in full
    assert {"shop.api.views", "shop.models.Item", "store.shop.api.serializers"} <= names
    assert "store.other.api.fields.Field" in names


def test_cycles_are_found_however_long():
    graph = {
        "a.models": set(),
        "a.services": {"a.models", "b.events"},
        "b.events": {"b.tasks"},
        "b.tasks": {"b.delivery"},
        "b.delivery": {"a.services"},
        "c.one": {"c.two"},
        "c.two": {"c.one"},
        "d.alone": {"a.models"},
    }

    assert cycles(graph) == [
        ["a.services", "b.delivery", "b.events", "b.tasks"],
        ["c.one", "c.two"],
    ]


def test_no_module_imports_itself_through_others():
    graph = module_graph(project_modules())
    assert "notifications.events" in graph["notifications.services"]
    assert cycles(graph) == []


def test_no_domain_module_imports_the_api():
    modules = project_modules()
    assert "listings.services" in modules
    offences = [
        f"{name} imports {imported}"
        for name, path in sorted(modules.items())
        if name.rsplit(".", 1)[-1] in DOMAIN and not is_api(name)
        for imported in sorted(imported_names(name, path))
        if is_api(imported)
    ]
    assert offences == []
