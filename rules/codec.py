"""JSON codec for the rules' dataclasses, driven by their type hints.

Coordinates are written as `[x, y]`; maps keyed by coordinates as lists of entries; enums as
their values. `docs/state-format.md` documents the formats with an example.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from functools import cache
from typing import Any

from rules.errors import RulesError
from rules.types import Coord, Feature, GameMap


class FormatError(RulesError):
    """A JSON document that does not describe the expected object."""


_PLAIN = (str, int, float, bool, type(None))


def _shown(data: Any) -> str:
    """A value as the JSON it came from writes it, cut short: an error quotes it so, never
    as a Python repr (which a person reading the message did not write), nor whole."""
    try:
        text = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON data
        text = repr(data)
    if not text.isprintable():  # a lone surrogate, a NUL: escaped, as JSON writes them
        text = json.dumps(data, default=repr)
    return text if len(text) <= 60 else text[:59] + "…"


@cache
def _init_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def to_data(obj: Any) -> Any:
    """`obj` as JSON data; each class's way of writing is worked out once (`_writer`)."""
    write = _WRITERS.get(obj.__class__)
    if write is None:
        write = _writer(obj.__class__)
    return write(obj)


def _as_is(obj: Any) -> Any:
    return obj


def _mapping_to_data(obj: Mapping[Any, Any]) -> Any:
    if obj and all(_is_coord(k) for k in obj):
        return [{"square": list(k), "value": to_data(v)} for k, v in sorted(obj.items())]
    return {str(k): to_data(v) for k, v in obj.items()}


def _writer(cls: type) -> Callable[[Any], Any]:
    """How an instance of `cls` is written (an enum as its value, coordinates' maps as
    entries, sets sorted), kept for the next one."""
    write: Callable[[Any], Any]
    if issubclass(cls, Enum):
        write = _enum_value
    elif issubclass(cls, _PLAIN):
        write = _as_is
    elif issubclass(cls, GameMap):
        write = _map_to_data
    elif dataclasses.is_dataclass(cls):
        write = _dataclass_writer(_init_fields(cls))
    elif issubclass(cls, Mapping):
        write = _mapping_to_data
    elif issubclass(cls, frozenset | set):
        write = _set_to_data
    elif issubclass(cls, tuple | list):
        write = _sequence_to_data
    else:
        write = _as_is
    _WRITERS[cls] = write
    return write


def _enum_value(obj: Enum) -> Any:
    return obj.value


def _set_to_data(obj: Any) -> list[Any]:
    return sorted(to_data(x) for x in obj)


def _sequence_to_data(obj: Any) -> list[Any]:
    writers = _WRITERS
    out = []
    for x in obj:
        w = writers.get(x.__class__)
        out.append(x if w is _as_is else (w or _writer(x.__class__))(x))
    return out


def _dataclass_writer(names: tuple[str, ...]) -> Callable[[Any], dict[str, Any]]:
    def write(obj: Any) -> dict[str, Any]:
        writers = _WRITERS
        out = {}
        for name in names:
            v = getattr(obj, name)
            w = writers.get(v.__class__)
            out[name] = v if w is _as_is else (w or _writer(v.__class__))(v)
        return out

    return write


_WRITERS: dict[type, Callable[[Any], Any]] = {}


def _is_coord(k: Any) -> bool:
    return isinstance(k, tuple) and len(k) == 2 and all(isinstance(i, int) for i in k)


def _map_to_data(m: GameMap) -> dict[str, Any]:
    squares = []
    for c in sorted(set(m.features) | set(m.zones)):
        sq: dict[str, Any] = {"x": c[0], "y": c[1]}
        feats = m.features.get(c)
        if feats:
            sq["features"] = sorted(f.value for f in feats)
        if c in m.zones:
            sq["zone"] = m.zones[c]
        squares.append(sq)
    return {"width": m.width, "height": m.height, "squares": squares}


def _map_from_data(d: Any) -> GameMap:
    if not isinstance(d, dict):
        raise FormatError("map must be an object with width, height and squares")
    try:
        w, h = int(d["width"]), int(d["height"])
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError("map needs integer width and height") from e
    if w < 1 or h < 1:
        raise FormatError("map width and height must be at least 1")
    features: dict[Coord, frozenset[Feature]] = {}
    zones: dict[Coord, str] = {}
    for i, sq in enumerate(d.get("squares", [])):
        try:
            c = (int(sq["x"]), int(sq["y"]))
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"map square #{i} needs integer x and y") from e
        if not (0 <= c[0] < w and 0 <= c[1] < h):
            raise FormatError(f"map square {c} lies outside the {w}×{h} map")
        try:
            feats = frozenset(Feature(f) for f in sq.get("features", []))
        except ValueError as e:
            raise FormatError(f"map square {c}: {e}") from e
        if feats:
            features[c] = feats
        if sq.get("zone") is not None:
            zones[c] = str(sq["zone"])
    return GameMap(w, h, features, zones)


@cache
def _hints(cls: type) -> dict[str, Any]:
    import rules.battle
    import rules.orders
    import rules.types

    ns = {**vars(rules.types), **vars(rules.battle), **vars(rules.orders)}
    return typing.get_type_hints(cls, globalns=ns)


@typing.overload
def from_data[T](cls: type[T], data: Any, where: str = "") -> T: ...
@typing.overload
def from_data(cls: Any, data: Any, where: str = "") -> Any: ...


def from_data(cls: Any, data: Any, where: str = "") -> Any:
    """Build an instance of `cls` (a dataclass or a type hint) from JSON data.

    A reader made once per type reads well-formed data without building the path of every
    value; data it refuses is read again the careful way (`_read`), which says where and
    what is wrong, so both give the same object or the same error."""
    try:
        return _reader(cls)(data)
    except Exception:  # whatever it was, the careful way says it or reads it
        return _read(cls, data, where)


def _read(cls: Any, data: Any, where: str = "") -> Any:
    where = where or getattr(cls, "__name__", str(cls))
    if cls is GameMap:
        return _map_from_data(data)
    if cls is Any:
        return data
    origin = typing.get_origin(cls)
    args = typing.get_args(cls)
    if origin in (typing.Union, types.UnionType):
        return _union_from_data(args, data, where)
    if cls is Coord or (origin is tuple and args == (int, int)):
        return _coord_from_data(data, where)
    if origin is tuple:
        return _tuple_from_data(args, data, where)
    if origin is frozenset:
        return frozenset(_read(args[0], x, where) for x in data)
    if origin in (Mapping, dict, typing.Mapping) or cls is Mapping:
        return _mapping_from_data(args, data, where)
    if isinstance(cls, type) and issubclass(cls, Enum):
        return _enum_from_data(cls, data, where)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        return _dataclass_from_data(cls, data, where)
    return _plain_from_data(cls, data, where)


def _union_from_data(args: tuple[Any, ...], data: Any, where: str) -> Any:
    """`X | Y | None`: None where None is allowed, else the first member that reads the data;
    when none does, every member's complaint."""
    if data is None and type(None) in args:
        return None
    errors = []
    for a in args:
        if a is type(None):
            continue
        try:
            return _read(a, data, where)
        except (FormatError, ValueError, TypeError) as e:
            errors.append(str(e).removeprefix(f"{where}: "))
    raise FormatError(f"{where}: {'; '.join(errors)}")


def _coord_from_data(data: Any, where: str) -> Coord:
    """A square: `[x, y]`, two integers."""
    if not (isinstance(data, list | tuple) and len(data) == 2):
        raise FormatError(f"{where}: a square is [x, y], got {_shown(data)}")
    try:
        return (int(data[0]), int(data[1]))
    except (TypeError, ValueError) as e:
        raise FormatError(f"{where}: a square is two integers, got {_shown(data)}") from e


def _tuple_from_data(args: tuple[Any, ...], data: Any, where: str) -> tuple[Any, ...]:
    """`tuple[X, ...]` (or a bare tuple) from a list; items are numbered in errors."""
    if not isinstance(data, list | tuple):
        raise FormatError(f"{where}: expected a list, got {type(data).__name__}")
    item = args[0] if args and (len(args) == 1 or args[1] is Ellipsis) else Any
    return tuple(_read(item, x, f"{where}[{i}]") for i, x in enumerate(data))


def _mapping_from_data(args: tuple[Any, ...], data: Any, where: str) -> dict[Any, Any]:
    """A mapping: keyed by squares, a list of `{square, value}` entries (an empty object is
    an empty map too); otherwise an object, whose text keys are read as integers where the
    key type is `int`."""
    kt, vt = args if args else (Any, Any)
    if kt is Coord or typing.get_origin(kt) is tuple:
        if isinstance(data, dict) and not data:
            return {}
        if not isinstance(data, list):
            raise FormatError(f"{where}: expected a list of {{square, value}}")
        return {_read(kt, e["square"], where): _read(vt, e["value"], where) for e in data}
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object, got {type(data).__name__}")
    if kt is int:  # JSON object keys are text
        try:
            data = {int(k): v for k, v in data.items()}
        except ValueError as e:
            raise FormatError(f"{where}: keys must be integers") from e
    return {_read(kt, k, where): _read(vt, v, f"{where}.{k}") for k, v in data.items()}


def _enum_from_data(cls: type[Enum], data: Any, where: str) -> Enum:
    """An enum member from its value; the error lists the allowed values."""
    try:
        return cls(data)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        raise FormatError(f"{where}: {_shown(data)} is not one of {allowed}") from None


def _dataclass_from_data(cls: Any, data: Any, where: str) -> Any:
    """A dataclass from an object: no unknown fields, every field without a default
    present, each read by its type hint; the class's own checks become format errors."""
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    unknown = set(data) - set(_init_fields(cls))
    if unknown:
        raise FormatError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.init and f.name in data:
            kwargs[f.name] = _read(hints[f.name], data[f.name], f"{where}.{f.name}")
        elif (
            f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ):
            raise FormatError(f"{where}: missing field {f.name!r}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise FormatError(f"{where}: {e}") from e


def _plain_from_data(cls: Any, data: Any, where: str) -> Any:
    """int, str and bool are checked (a bool is no integer); anything else passes as is."""
    if cls is int and (isinstance(data, bool) or not isinstance(data, int)):
        raise FormatError(f"{where}: expected an integer, got {_shown(data)}")
    if cls is str and not isinstance(data, str):
        raise FormatError(f"{where}: expected text, got {_shown(data)}")
    if cls is bool and not isinstance(data, bool):
        raise FormatError(f"{where}: expected true or false, got {_shown(data)}")
    return data


# --- readers made once per type: `from_data`'s way for data that reads --------------------


@cache
def _reader(cls: Any) -> Callable[[Any], Any]:
    """What `_read(cls, …)` does, without the path of each value: any exception sends the
    caller back to `_read`, which says what is wrong."""
    if cls is GameMap:
        return _map_from_data
    if cls is Any:
        return _as_is
    origin = typing.get_origin(cls)
    args = typing.get_args(cls)
    if origin in (typing.Union, types.UnionType):
        return _union_reader(args)
    if cls is Coord or (origin is tuple and args == (int, int)):
        return _coord_reader
    if origin is tuple:
        item = _reader(args[0] if args and (len(args) == 1 or args[1] is Ellipsis) else Any)
        return lambda d: _list_of(d) and tuple(map(item, d))
    if origin is frozenset:
        member = _reader(args[0])
        return lambda d: frozenset(map(member, d))
    if origin in (Mapping, dict, typing.Mapping) or cls is Mapping:
        return _mapping_reader(*(args or (Any, Any)))
    if isinstance(cls, type) and issubclass(cls, Enum):
        return _enum_reader(cls)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        return _dataclass_reader(cls)
    return _PLAIN_READERS.get(cls, _as_is)


def _list_of(d: Any) -> bool:
    if not isinstance(d, list | tuple):
        raise FormatError("expected a list")
    return True


def _union_reader(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    none_ok = type(None) in args
    members = [a for a in args if a is not type(None)]

    def read(d: Any) -> Any:
        if d is None and none_ok:
            return None
        for a in members:  # the careful way's order, and the same complaints let through
            try:
                return _reader(a)(d)
            except (FormatError, ValueError, TypeError):
                continue
        raise FormatError("no member of the union reads it")

    return read


def _coord_reader(d: Any) -> Coord:
    if isinstance(d, list | tuple) and len(d) == 2:
        return (int(d[0]), int(d[1]))
    raise FormatError("a square is [x, y]")


def _mapping_reader(kt: Any, vt: Any) -> Callable[[Any], Any]:
    key, value = _reader(kt), _reader(vt)
    if kt is Coord or typing.get_origin(kt) is tuple:

        def by_square(d: Any) -> dict[Any, Any]:
            if isinstance(d, dict) and not d:
                return {}
            if not isinstance(d, list):
                raise FormatError("expected a list of {square, value}")
            return {key(e["square"]): value(e["value"]) for e in d}

        return by_square

    def by_key(d: Any) -> dict[Any, Any]:
        if not isinstance(d, dict):
            raise FormatError("expected an object")
        if kt is int:
            d = {int(k): v for k, v in d.items()}
        return {key(k): value(v) for k, v in d.items()}

    return by_key


def _enum_reader(cls: type[Enum]) -> Callable[[Any], Any]:
    members = cls._value2member_map_

    def read(d: Any) -> Any:
        m = members.get(d)
        return m if m is not None else cls(d)

    return read


def _dataclass_reader(cls: Any) -> Callable[[Any], Any]:
    spec: list[Any] = []  # filled on first use: a class may hold itself

    def read(d: Any) -> Any:
        if not spec:
            hints = _hints(cls)
            fields = [f for f in dataclasses.fields(cls) if f.init]
            spec.append(frozenset(f.name for f in fields))
            spec.append(
                [
                    (
                        f.name,
                        _reader(hints[f.name]),
                        f.default is dataclasses.MISSING
                        and f.default_factory is dataclasses.MISSING,
                    )
                    for f in fields
                ]
            )
        if not isinstance(d, dict) or not spec[0].issuperset(d):
            raise FormatError("not this object")
        kwargs = {}
        for name, read_field, required in spec[1]:
            if name in d:
                kwargs[name] = read_field(d[name])
            elif required:
                raise FormatError(f"missing field {name!r}")
        return cls(**kwargs)

    return read


def _int_reader(d: Any) -> int:
    if d.__class__ is int or (isinstance(d, int) and not isinstance(d, bool)):
        return d
    raise FormatError("expected an integer")


def _str_reader(d: Any) -> str:
    if isinstance(d, str):
        return d
    raise FormatError("expected text")


def _bool_reader(d: Any) -> bool:
    if isinstance(d, bool):
        return d
    raise FormatError("expected true or false")


_PLAIN_READERS: dict[Any, Callable[[Any], Any]] = {
    int: _int_reader,
    str: _str_reader,
    bool: _bool_reader,
}
