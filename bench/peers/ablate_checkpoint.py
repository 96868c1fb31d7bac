"""Reads ablate's checkpoint file (graph/checkpoint_file.h) with numpy only, so every peer's
environment can load ablate's weights:

  offset  size  field
  0       8     magic "ABLATECK"
  8       4     format version, little-endian u32 (1)
  12      8     payload size P, u64
  20      P     payload: u32 M, M x (key, value) strings (u32 length + bytes);
                u32 T, T x tensor: name (string), dtype u8 (0 f32, 1 f64, 2 i32, 3 u8),
                u32 rank, rank x i64 dims, numel x element bytes, little-endian
  20+P    4     CRC-32 (zlib) of the payload

Parameters are named `<layer>.weight` and `<layer>.bias` in ablate's layouts (convolution
weight [K, C, KH, KW], inner_product weight [O, I] with I in NCHW order); optimizer slots
follow them (`<name>.stateK`; the static engine's `<name>/velocity`, `/m`, ...).
Every length is checked; a problem raises CheckpointError naming the file and the problem.

    python3 ablate_checkpoint.py FILE     lists the metadata keys and the tensors
"""
import struct
import sys
import zlib

import numpy as np

MAGIC = b"ABLATECK"
VERSION = 1
DTYPES = {0: np.dtype("<f4"), 1: np.dtype("<f8"), 2: np.dtype("<i4"), 3: np.dtype("u1")}


class CheckpointError(ValueError):
    """A file that is not a whole, valid ablate checkpoint; the message names file and problem."""


class _Reader:
    def __init__(self, data, path):
        self.data, self.pos, self.path = data, 0, path

    def fail(self, what):
        raise CheckpointError(f"checkpoint {self.path}: {what} (at payload byte {self.pos})")

    def take(self, size, what):
        if size > len(self.data) - self.pos:
            self.fail(f"truncated {what}: {size} bytes needed, {len(self.data) - self.pos} left")
        out = self.data[self.pos:self.pos + size]
        self.pos += size
        return out

    def unpack(self, fmt, what):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))[0]

    def string(self, what):
        raw = self.take(self.unpack("I", what + " length"), what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{what} is not UTF-8 text")


PARAMETER_SUFFIXES = {"weight", "bias"} | {f"{role}_{part}" for role in ("query", "key", "value", "out")
                                            for part in ("weight", "bias")}


class Checkpoint:
    """metadata: {key: text}; tensors: {name: numpy array} in file order."""

    def __init__(self, path, metadata, tensors):
        self.path, self.metadata, self.tensors = path, metadata, tensors

    def tensor(self, name):
        if name not in self.tensors:
            raise CheckpointError(f"checkpoint {self.path}: no tensor '{name}' (it has "
                                  f"{', '.join(self.tensors) or 'none'})")
        return self.tensors[name]

    def parameters(self):
        """{name: array} of the parameters, `<layer>.weight` / `<layer>.bias` and an attention
        layer's `<layer>.query_weight` ... `<layer>.out_bias` (no optimizer state: `<name>/m`)."""
        return {n: t for n, t in self.tensors.items()
                if "/" not in n and n.rpartition(".")[2] in PARAMETER_SUFFIXES}


def load_parameters(path, expected, dtype):
    """{name: array} of exactly the parameters in `expected` ({name: shape in ablate's layout}),
    checked for presence, shape and dtype (numpy dtype of the run); a checkpoint with another
    model's parameters is an error naming each difference."""
    params = read(path).parameters()
    problems = [f"no '{n}'" for n in expected if n not in params]
    problems += [f"'{n}' is {list(params[n].shape)}, the model's is {list(s)}"
                 for n, s in expected.items() if n in params and tuple(params[n].shape) != tuple(s)]
    problems += [f"'{n}' is {params[n].dtype}, the run's precision is {np.dtype(dtype)}"
                 for n in expected if n in params and params[n].dtype != np.dtype(dtype)]
    problems += [f"'{n}' is not a parameter of the model" for n in params if n not in expected]
    if problems:
        raise CheckpointError(f"checkpoint {path} does not fit the model: " + "; ".join(problems))
    return {n: params[n] for n in expected}


def parse(data, path="<bytes>"):
    if len(data) < 24:
        raise CheckpointError(f"checkpoint {path}: {len(data)} bytes, shorter than the 24 of header and checksum")
    if data[:8] != MAGIC:
        raise CheckpointError(f"checkpoint {path}: magic {data[:8]!r} is not {MAGIC!r}: not an ablate checkpoint")
    version, size = struct.unpack("<IQ", data[8:20])
    if version != VERSION:
        raise CheckpointError(f"checkpoint {path}: format version {version}; this reader knows {VERSION}")
    if size != len(data) - 24:
        raise CheckpointError(f"checkpoint {path}: the header says a payload of {size} bytes, the file holds "
                              f"{len(data) - 24} (truncated or extended)")
    payload = data[20:20 + size]
    stored, = struct.unpack("<I", data[20 + size:])
    actual = zlib.crc32(payload) & 0xFFFFFFFF
    if stored != actual:
        raise CheckpointError(f"checkpoint {path}: CRC-32 of the payload is 0x{actual:08X}, the file says "
                              f"0x{stored:08X}: corrupted")
    r = _Reader(payload, path)
    metadata = {}
    for i in range(r.unpack("I", "metadata count")):
        key = r.string(f"metadata key {i}")
        metadata[key] = r.string(f"metadata value of '{key}'")
    tensors = {}
    for i in range(r.unpack("I", "tensor count")):
        name = r.string(f"tensor name {i}")
        code = r.unpack("B", f"dtype of tensor '{name}'")
        if code not in DTYPES:
            r.fail(f"tensor '{name}' has dtype code {code}; expected 0 (f32), 1 (f64), 2 (i32) or 3 (u8)")
        rank = r.unpack("I", f"rank of tensor '{name}'")
        if rank > 8:
            r.fail(f"tensor '{name}' has rank {rank}; expected at most 8")
        dims = [r.unpack("q", f"dimension {d} of tensor '{name}'") for d in range(rank)]
        if any(d < 0 for d in dims):
            r.fail(f"tensor '{name}' has a negative dimension in {dims}")
        dtype = DTYPES[code]
        count = int(np.prod(dims, dtype=np.int64)) if dims else 1
        raw = r.take(count * dtype.itemsize, f"data of tensor '{name}' {dims}")
        if name in tensors:
            r.fail(f"tensor '{name}' appears twice")
        tensors[name] = np.frombuffer(raw, dtype=dtype).reshape(dims).astype(dtype.newbyteorder("="))
    if r.pos != len(payload):
        r.fail(f"{len(payload) - r.pos} bytes after the last tensor")
    return Checkpoint(path, metadata, tensors)


def read(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CheckpointError(f"checkpoint {path}: cannot read it: {e.strerror}") from None
    return parse(data, path)


if __name__ == "__main__":
    c = read(sys.argv[1])
    print(f"{c.path}: iteration {c.metadata.get('iteration', '?')}, {len(c.metadata)} metadata keys")
    for name, t in c.tensors.items():
        print(f"  {name:24s} {t.dtype} {list(t.shape)}")
