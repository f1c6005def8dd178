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


WORD = {w["name"]: w for w in _SPEC["words"]}


def pack_word(word_name, **values):
    """A 32-bit word of formats/nic.toml's [[words]] with the given fields set."""
    word = 0
    for f in WORD[word_name]["fields"]:
        v = values.get(f["name"], 0)
        assert v < (1 << f["bits"]), f"{word_name}.{f['name']} = {v:#x} does not fit"
        word |= v << f["lsb"]
    return word


# The PD's privileged token (an SGE address is then a logical address): the word priv_token
# with its fixed fields (formats/nic.toml, as ndk_privileged_token in the C driver).
def privileged_token(pdn):
    return pack_word("priv_token", key=ENUM["priv_token"]["KEY"], pd=pdn,
                     marker=ENUM["priv_token"]["MARKER"])


def _field(struct_name, name):
    for f in STRUCT[struct_name]["fields"]:
        if f["name"] == name:
            return f
    raise KeyError(f"{struct_name}.{name}")


def field(struct_name, name):
    """(offset, bytes) of a scalar field."""
    f = _field(struct_name, name)
    return f["offset"], f["bits"] // 8


def pack(struct_name, **values):
    """The little-endian image of a struct with the given fields set (a nested struct field
    takes a dict of its own fields)."""
    buf = bytearray(STRUCT[struct_name]["bytes"])
    for name, value in values.items():
        f = _field(struct_name, name)
        if "struct" in f:
            sub = pack(f["struct"], **value)
            buf[f["offset"]:f["offset"] + len(sub)] = sub
        else:
            n = f["bits"] // 8
            buf[f["offset"]:f["offset"] + n] = int(value).to_bytes(n, "little")
    return bytes(buf)


def unpack(struct_name, data):
    out = {}
    for f in STRUCT[struct_name]["fields"]:
        if "bits" in f:
            n = f["bits"] // 8
            out[f["name"]] = int.from_bytes(data[f["offset"]:f["offset"] + n], "little")
    return out
