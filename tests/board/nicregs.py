# SPDX-License-Identifier: MIT
"""The register map and formats of formats/nic.toml (the one source of truth), as Python
constants for the board-level tests' small driver: nothing here is copied by hand."""
import os
import pathlib
import struct
import tomllib

_ROOT = pathlib.Path(os.environ.get("NDK_ROOT", pathlib.Path(__file__).resolve().parents[2]))
_SPEC = tomllib.loads((_ROOT / "formats/nic.toml").read_text())

DEVICE = _SPEC["device"]
REG = {r["name"]: r["offset"] for r in _SPEC["registers"]}
OFF = {o["name"]: o["value"] for o in _SPEC["offsets"]}
ENUM = {e["name"]: {v["name"]: v["value"] for v in e["values"]} for e in _SPEC["enums"]}
STRUCT = {s["name"]: s for s in _SPEC["structs"]}


def field(struct_name, name):
    """(offset, bytes) of a scalar field."""
    for f in STRUCT[struct_name]["fields"]:
        if f["name"] == name:
            return f["offset"], f["bits"] // 8
    raise KeyError(f"{struct_name}.{name}")


def pack(struct_name, **values):
    """The little-endian image of a struct with the given scalar fields set."""
    buf = bytearray(STRUCT[struct_name]["bytes"])
    for name, value in values.items():
        off, n = field(struct_name, name)
        buf[off:off + n] = int(value).to_bytes(n, "little")
    return bytes(buf)


def unpack(struct_name, data):
    out = {}
    for f in STRUCT[struct_name]["fields"]:
        if "bits" in f:
            n = f["bits"] // 8
            out[f["name"]] = int.from_bytes(data[f["offset"]:f["offset"] + n], "little")
    return out
