"""The names a shared library exports (its dynamic symbol table), read from the ELF file without loading it:
what a linker sees when a program is linked with ``-lname``."""

from __future__ import annotations

import struct
from pathlib import Path

_SHT_DYNSYM = 11
_SHN_UNDEF = 0
_STB_GLOBAL, _STB_WEAK, _STB_GNU_UNIQUE = 1, 2, 10
_STV_DEFAULT, _STV_PROTECTED = 0, 3


class ElfError(ValueError):
    """Not an ELF shared object this reader understands."""


def dynamic_exports(path) -> set[str]:
    """The defined global and weak symbols of the dynamic symbol table (default or protected visibility)."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or len(data) < 64:
        raise ElfError(f"{path}: not an ELF file")
    bits, order = data[4], {1: "<", 2: ">"}.get(data[5])
    if bits not in (1, 2) or order is None:
        raise ElfError(f"{path}: unknown ELF class or byte order")
    is64 = bits == 2
    if is64:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        sh_fmt, sym_fmt = order + "IIQQQQIIQQ", order + "IBBHQQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        sh_fmt, sym_fmt = order + "IIIIIIIIII", order + "IIIBBH"
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if off + struct.calcsize(sh_fmt) > len(data):
            raise ElfError(f"{path}: truncated section headers")
        sections.append(struct.unpack_from(sh_fmt, data, off))
    names: set[str] = set()
    for sh in sections:
        if sh[1] != _SHT_DYNSYM:
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9]
        if entsize == 0 or link >= len(sections):
            raise ElfError(f"{path}: malformed dynamic symbol table")
        strtab_off, strtab_size = sections[link][4], sections[link][5]
        for k in range(1, size // entsize):  # entry 0 is the null symbol
            if is64:
                st_name, st_info, st_other, st_shndx, _, _ = struct.unpack_from(sym_fmt, data, offset + k * entsize)
            else:
                st_name, _, _, st_info, st_other, st_shndx = struct.unpack_from(sym_fmt, data, offset + k * entsize)
            if st_shndx == _SHN_UNDEF or (st_info >> 4) not in (_STB_GLOBAL, _STB_WEAK, _STB_GNU_UNIQUE):
                continue
            if (st_other & 3) not in (_STV_DEFAULT, _STV_PROTECTED) or st_name >= strtab_size:
                continue
            start = strtab_off + st_name
            names.add(data[start:data.index(b"\0", start)].decode(errors="replace"))
    return names


def operators(exports: set[str]) -> list[str]:
    """The operators among exports: ``aclnnXxx`` with its ``aclnnXxxGetWorkspaceSize`` (and the few the toolkit names
    without the nn, such as ``aclStft``), sorted."""
    return sorted(name[: -len("GetWorkspaceSize")] for name in exports
                  if name.startswith("acl") and name.endswith("GetWorkspaceSize")
                  and name[: -len("GetWorkspaceSize")] in exports)
