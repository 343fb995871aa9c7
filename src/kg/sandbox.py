"""No network for the processes that evaluate queries and updates: a seccomp filter, installed after start-up.

The filter makes ``socket()`` fail with EPERM for every address family but AF_UNIX (the worker talks to its
parent over a socket pair made before the filter), and refuses ``io_uring_setup`` (io_uring can open sockets
without the ``socket`` system call). It covers every thread of the process (SECCOMP_FILTER_FLAG_TSYNC), is
inherited by any child and cannot be removed, so whatever the query text makes the engine try (SERVICE, LOAD,
an IRI dereference), no outbound connection can be opened. A guard that reads the query text can disagree with
the engine's parser; this cannot.

The filter is classic BPF, written here because it is seven instructions (no libseccomp binding needed). It is
available on Linux x86_64 and aarch64; elsewhere :func:`deny_network` says why it is not, and the caller decides.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import platform
import socket
import struct
import threading
import time
from dataclasses import dataclass

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000
# BPF opcodes: load a word at an absolute offset of struct seccomp_data, jump if equal / greater-or-equal, return
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16  # struct seccomp_data: nr, arch, args[0] (low word, little-endian)


@dataclass(frozen=True)
class Arch:
    """The numbers the filter needs on one processor architecture."""

    audit: int
    socket: int
    seccomp: int
    io_uring_setup: int


ARCHES = {
    "x86_64": Arch(audit=0xC000003E, socket=41, seccomp=317, io_uring_setup=425),
    "aarch64": Arch(audit=0xC00000B7, socket=198, seccomp=277, io_uring_setup=425),
}


class SandboxUnavailable(OSError):
    """The platform cannot install the network filter (not Linux, another architecture, or seccomp refused)."""


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def network_filter(arch: Arch) -> bytes:
    """The BPF program: allow everything except socket() outside AF_UNIX and io_uring_setup (EPERM)."""
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    program = [
        _instruction(BPF_LD_W_ABS, ARCH_OFFSET),
        _instruction(BPF_JEQ_K, arch.audit, jt=1, jf=0),  # another ABI than expected: deny everything below
        _instruction(BPF_RET_K, deny),
        _instruction(BPF_LD_W_ABS, NR_OFFSET),
        _instruction(BPF_JGE_K, X32_SYSCALL_BIT, jt=5, jf=0),  # x32 system calls: deny
        _instruction(BPF_JEQ_K, arch.io_uring_setup, jt=4, jf=0),
        _instruction(BPF_JEQ_K, arch.socket, jt=0, jf=2),
        _instruction(BPF_LD_W_ABS, ARG0_OFFSET),
        _instruction(BPF_JEQ_K, socket.AF_UNIX, jt=0, jf=1),
        _instruction(BPF_RET_K, SECCOMP_RET_ALLOW),
        _instruction(BPF_RET_K, deny),
    ]
    return b"".join(program)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def current_arch() -> Arch:
    """The filter's numbers for this machine, or SandboxUnavailable."""
    if os.uname().sysname != "Linux":
        raise SandboxUnavailable("the network sandbox needs Linux (seccomp)")
    arch = ARCHES.get(platform.machine())
    if arch is None:
        raise SandboxUnavailable(f"the network sandbox knows no system call numbers for {platform.machine()}")
    return arch


def deny_network() -> None:
    """Install the filter on every thread of this process (irreversible), or raise SandboxUnavailable."""
    arch = current_arch()
    libc = _libc()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SandboxUnavailable(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    code = network_filter(arch)
    instructions = ctypes.create_string_buffer(code, len(code))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = Program(len(code) // 8, ctypes.cast(instructions, ctypes.c_void_p))
    result = libc.syscall(ctypes.c_long(arch.seccomp), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                          ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(program))
    if result != 0:
        raise SandboxUnavailable(f"seccomp() refused the network filter: {os.strerror(ctypes.get_errno())}")


def network_denied() -> bool:
    """Whether this process can no longer open an Internet socket (a probe, for tests and health checks)."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    except PermissionError:
        return True
    return False


def exit_with_parent(every: float = 0.5) -> None:
    """Exit this process at once when its parent does (a worker must never outlive the server, even in the middle
    of a query). A thread watches the parent's id: PR_SET_PDEATHSIG would fire when the parent's thread that
    started this process ends, which in a threaded server is long before the server does."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
