"""Reading weight files straight into numpy: GGUF (llama.cpp's single file, with its quantized blocks) and
safetensors with bfloat16 weights (which numpy has no type for). Plain byte layouts, read without torch.

GGUF: "GGUF", a version, the counts of tensors and of metadata entries; the metadata (typed key/value
pairs: the architecture's sizes, the tokenizer's vocabulary and merges); each tensor's name, shape, type
and offset; then the tensors' data, aligned. Its quantized types (Q8_0, Q4_1, Q5_0, Q4_K, Q6_K…) are
dequantized by llama.cpp's own `gguf` package. Two things are done here instead, each for a measured reason
(the figures: benchmarks/README.md, "The figures behind the code's choices"):
- the header is read by `read_gguf`: `gguf.GGUFReader` builds an object per vocabulary entry, which on Gemma 3's
  262,144 tokens takes fifty times as long as this reader;
- the matrices a model keeps in their blocks and unpacks at every pass (SmolLM2's MLP, the Q8_0 token
  tables) are unpacked by `unpack`, from blocks split once at load, where `gguf.quants.dequantize` parses the
  file's bytes again on every call. The tests check that both give the same numbers, bit for bit. Its block
  types:
    Q8_0: a float16 scale d and 32 signed bytes q:               x = d · q
    Q4_1: a float16 scale d and minimum m, 16 bytes of 4-bit q:   x = d · q + m
      (the low halves of the 16 bytes are the block's first 16 numbers, the high halves the last 16)
    Q5_0: a float16 scale d, 32 fifth bits, 16 bytes of 4 bits:  x = d · (q − 16)
    Q6_K: 256 numbers of 6 bits, in 16 groups of 16 each with an 8-bit scale s, and one float16 d:  x = (d · s) · q
  Q5_0 and Q6_K are split at load into signed bytes and a float32 scale per group (Gemma 3's MLP: 84 MB where
  float32 would take 283 MB), so that their unpacking is Q8_0's.
"""

from __future__ import annotations

import itertools
import json
import mmap
import struct
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

GGUF_MAGIC = b"GGUF"
_SCALARS = {
    0: "<u1",
    1: "<i1",
    2: "<u2",
    3: "<i2",
    4: "<u4",
    5: "<i4",
    6: "<f4",
    7: "<u1",
    10: "<u8",
    11: "<i8",
    12: "<f8",
}
_STRING, _ARRAY = 8, 9
F32, F16, Q4_1, Q5_0, Q8_0, Q6_K, BF16 = 0, 1, 3, 6, 8, 14, 30
_BLOCK_BYTES = {Q4_1: 20, Q5_0: 22, Q8_0: 34, Q6_K: 210}  # the types `unpack` reads: bytes per block
_BLOCK_SIZE = {Q4_1: 32, Q5_0: 32, Q8_0: 32, Q6_K: 256}  # and numbers per block


class WeightFileError(ValueError):
    """The file is not what it should be (truncated, another format, a type this reader does not know)."""


class _Cursor:
    def __init__(self, data: memoryview):
        self.data, self.at = data, 0

    def take(self, n: int) -> memoryview:
        if self.at + n > len(self.data):
            raise WeightFileError("the file ends early (truncated?)")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def scalar(self, kind: int):
        fmt = _SCALARS[kind]
        return np.frombuffer(self.take(int(fmt[-1])), dtype=fmt)[0].item()

    def string(self) -> str:
        return str(self.take(self.scalar(10)), "utf-8", errors="replace")

    def strings(self, n: int) -> list[str]:
        """n strings in a row (a vocabulary of 49,152 tokens): one tight loop, the hot part of reading a file."""
        data, at, out = self.data, self.at, []
        for _ in range(n):
            size = int.from_bytes(data[at : at + 8], "little")
            out.append(str(data[at + 8 : at + 8 + size], "utf-8", errors="replace"))
            at += 8 + size
        if at > len(data):
            raise WeightFileError("the file ends early (truncated?)")
        self.at = at
        return out

    def value(self, kind: int):
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, n = self.scalar(4), self.scalar(10)
            if item == _STRING:
                return self.strings(n)
            if item not in _SCALARS:
                raise WeightFileError(f"an array of unknown type {item}")
            fmt = _SCALARS[item]
            return np.frombuffer(self.take(n * int(fmt[-1])), dtype=fmt).tolist()
        if kind not in _SCALARS:
            raise WeightFileError(f"a value of unknown type {kind}")
        return self.scalar(kind)


@dataclass(frozen=True)
class GGUFTensor:
    name: str
    shape: tuple[int, ...]  # numpy order: rows first (GGUF lists the innermost dimension first)
    kind: int
    offset: int

    @property
    def type_name(self) -> str:
        from gguf import GGMLQuantizationType

        try:
            return GGMLQuantizationType(self.kind).name
        except ValueError:
            return str(self.kind)

    @property
    def nbytes(self) -> int:
        """Its bytes in the file: 4 a float32, 2 a float16, a block's bytes per block of a quantized type."""
        from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

        try:
            per_block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(self.kind)]
        except (ValueError, KeyError):
            raise WeightFileError(f"tensor {self.name} is of type {self.kind}, which gguf does not know") from None
        return int(np.prod(self.shape)) // per_block * block_bytes


@dataclass(frozen=True, eq=False)
class GGUF:
    metadata: dict
    tensors: dict[str, GGUFTensor]
    data: memoryview  # the tensors' bytes
    mapping: mmap.mmap | None = None  # the file, mapped read only

    def let_go_of_pages(self) -> None:
        """Once the model is built: the file's pages leave the process's memory (the system keeps them in its
        cache). What was copied out (blocks, dequantized matrices, the tokenizer's lists) is never read from the
        file again, and what is read in place (a token table) comes back page by page as it is read. A server
        holding Gemma 3 kept the whole 253 MB file resident after its first trace, though it reads only the table."""
        if self.mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
            self.mapping.madvise(mmap.MADV_DONTNEED)

    def blocks(self, name: str) -> np.ndarray | None:
        """A quantized tensor's blocks, (n_blocks, bytes per block) copied out of the file; None if not quantized."""
        t = self.tensors[name]
        if t.kind not in _BLOCK_BYTES:
            return None
        size = _BLOCK_BYTES[t.kind]
        n = int(np.prod(t.shape))
        count = n // _BLOCK_SIZE[t.kind] * size
        return np.frombuffer(self.data, dtype=np.uint8, count=count, offset=t.offset).reshape(-1, size).copy()

    def quantized(self, name: str) -> QuantizedMatrix:
        """A quantized (d_out, d_in) matrix kept in its blocks, multiplied as (d_in, d_out)."""
        t = self.tensors[name]
        return QuantizedMatrix(self.blocks(name), t.kind, t.shape)

    def table(self, name: str) -> QuantizedTable | np.ndarray:
        """A (rows, width) table of Q8_0 blocks (a token embedding) read in place, its rows unpacked when looked
        up; a table of another type, dequantized."""
        t = self.tensors[name]
        if t.kind != Q8_0:
            return self.array(name)
        size = _BLOCK_BYTES[Q8_0]
        blocks = np.frombuffer(self.data, dtype=np.uint8, count=t.nbytes, offset=t.offset)
        return QuantizedTable(blocks.reshape(t.shape[0], -1, size), t.shape)

    def array(self, name: str) -> np.ndarray:
        """A tensor as float32, dequantized by gguf: (rows, row length), as GGUF lays it out. A float32 tensor is
        a read-only view of the file."""
        from gguf import GGMLQuantizationType
        from gguf.quants import dequantize

        t = self.tensors[name]
        n = int(np.prod(t.shape))
        if t.kind == F32:
            return np.frombuffer(self.data, dtype="<f4", count=n, offset=t.offset).reshape(t.shape)
        raw = np.frombuffer(self.data, dtype=np.uint8, count=t.nbytes, offset=t.offset)
        try:
            out = dequantize(raw.reshape(t.shape[0], -1), GGMLQuantizationType(t.kind))
        except NotImplementedError as exc:
            raise WeightFileError(f"tensor {name} is stored as {t.type_name}, which gguf cannot dequantize") from exc
        return out.astype(np.float32, copy=False).reshape(t.shape)


def split_blocks(blocks: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """A block's parts: its scale d and, for Q4_1, its minimum m, as float32 (n_groups, 1) each, and its numbers
    (Q8_0, Q5_0: 32 signed bytes a group; Q6_K: 16; Q4_1: as stored, 16 bytes of two 4-bit numbers)."""
    if kind == Q6_K:
        return _split_q6_k(blocks)
    d = blocks[:, :2].copy().view("<f2").astype(np.float32)
    if kind == Q8_0:
        return d, None, blocks[:, 2:].copy().view(np.int8)
    if kind == Q5_0:  # 4 bytes of fifth bits (bit i: number i), then the low nibbles as Q4_1's
        high = (blocks[:, 2:6].copy().view("<u4") >> np.arange(32, dtype=np.uint32)) & 1  # (n, 32)
        low = np.concatenate([blocks[:, 6:] & 0x0F, blocks[:, 6:] >> 4], axis=1)  # (n, 32)
        return d, None, ((low | (high.astype(np.uint8) << 4)).astype(np.int8) - np.int8(16))
    if kind != Q4_1:
        raise WeightFileError(f"blocks of type {kind} are not unpacked here")
    return d, blocks[:, 2:4].copy().view("<f2").astype(np.float32), np.ascontiguousarray(blocks[:, 4:])


def _split_q6_k(blocks: np.ndarray) -> tuple[np.ndarray, None, np.ndarray]:
    """Q6_K's 210 bytes: 128 of low nibbles, 64 of high 2-bit pairs, 16 signed group scales, a float16 d. The 256
    numbers come in two halves of 128; in each, the low nibbles of 64 bytes and then their high nibbles give
    numbers 0-63 and 64-127, and byte j of the 32 high bytes holds the top bits of numbers j, j+32, j+64, j+96."""
    n = blocks.shape[0]
    low, high, scales, d = blocks[:, :128], blocks[:, 128:192], blocks[:, 192:208], blocks[:, 208:210]
    low = (low.reshape(n, 2, 1, 64) >> np.array([0, 4], dtype=np.uint8).reshape(1, 1, 2, 1)) & 0x0F
    high = (high.reshape(n, 2, 1, 32) >> np.array([0, 2, 4, 6], dtype=np.uint8).reshape(1, 1, 4, 1)) & 0x03
    q = (low.reshape(n, 2, 128) | (high.reshape(n, 2, 128) << 4)).astype(np.int8) - np.int8(32)
    group_scale = d.copy().view("<f2").astype(np.float32) * scales.copy().view(np.int8).astype(np.float32)
    return group_scale.reshape(n * 16, 1), None, q.reshape(n * 16, 16)


def unpack(d: np.ndarray, m: np.ndarray | None, q: np.ndarray) -> np.ndarray:
    """x = d · q (+ m): (n_groups × group size,) float32, computed in place in one array (the hot path of a
    quantized model)."""
    if m is None:  # Q8_0, and Q5_0 and Q6_K as split
        out = q.astype(np.float32)
        out *= d
        return out.reshape(-1)
    out = np.empty((q.shape[0], 32), dtype=np.float32)
    np.bitwise_and(q, 0x0F, out=out[:, :16], casting="unsafe")  # the low halves: the block's first 16 numbers
    np.right_shift(q, 4, out=out[:, 16:], casting="unsafe")  # the high halves: its last 16
    out *= d
    out += m
    return out.reshape(-1)


def read_gguf(path: Path) -> GGUF:
    """The metadata and the tensors' places of a GGUF file (version 2 or 3); the data is mapped, not read."""
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    mapped = np.frombuffer(mapping, dtype=np.uint8)
    cur = _Cursor(memoryview(mapped))
    if bytes(cur.take(4)) != GGUF_MAGIC:
        raise WeightFileError("it is not a GGUF file (it does not start with 'GGUF')")
    version = cur.scalar(4)
    if version not in (2, 3):
        raise WeightFileError(f"GGUF version {version} is not one this reader knows (2 or 3)")
    n_tensors, n_values = cur.scalar(10), cur.scalar(10)
    metadata = {}
    for _ in range(n_values):
        key = cur.string()
        metadata[key] = cur.value(cur.scalar(4))
    infos = []
    for _ in range(n_tensors):
        name = cur.string()
        dims = [cur.scalar(10) for _ in range(cur.scalar(4))]
        infos.append((name, tuple(reversed(dims)), cur.scalar(4), cur.scalar(10)))
    align = int(metadata.get("general.alignment", 32))
    start = (cur.at + align - 1) // align * align
    data = memoryview(mapped)[start:]
    tensors = {}
    for name, shape, kind, offset in infos:
        t = GGUFTensor(name, shape, kind, offset)
        if offset + t.nbytes > len(data):
            raise WeightFileError(f"tensor {name} runs past the end of the file (truncated?)")
        tensors[name] = t
    return GGUF(metadata, tensors, data, mapping)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every floating-point tensor of a .safetensors file as float32; bfloat16 is widened by hand (its 16 bits
    are a float32's top half), so that a bf16 checkpoint reads without torch. A float32 tensor is a read-only
    view of the file."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    if len(raw) < 8:
        raise WeightFileError("the file is too short to be safetensors")
    (header_len,) = struct.unpack("<Q", raw[:8].tobytes())
    if header_len > len(raw) - 8:
        raise WeightFileError("the safetensors header runs past the end of the file (truncated?)")
    header = json.loads(raw[8 : 8 + header_len].tobytes())
    body = raw[8 + header_len :]
    kinds = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in kinds:
            continue
        start, end = info["data_offsets"]
        if end > len(body):
            raise WeightFileError(f"tensor {name} runs past the end of the file (truncated?)")
        a = body[start:end].view(kinds[info["dtype"]])
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        # float32 is read in place, from the file's pages (read only): the model's copy is the one it keeps
        out[name] = (a if a.dtype == np.float32 else a.astype(np.float32)).reshape(info["shape"])
    return out


class QuantizedMatrix:
    """A (d_in, d_out) matrix kept in its file's quantized blocks and unpacked only to be multiplied, `x @ W`.

    SmolLM2's MLP holds 80 million of its 135 million numbers: as float32 they would take 318 MB of a
    server's memory, in their 4-bit blocks 50 MB. The few most recently unpacked matrices are kept (one layer's
    packed matrices: Gemma's W_Q, W_K and MLP), so that a pass that runs one layer for many tokens in a row (the KV
    cache) unpacks each matrix once.
    """

    __array_ufunc__ = None  # numpy hands `x @ W` to __rmatmul__ instead of converting W itself
    _recent: ClassVar[OrderedDict[int, np.ndarray]] = OrderedDict()  # shared by every matrix: a bounded cache
    _lock: ClassVar[threading.Lock] = threading.Lock()
    KEEP: ClassVar[int] = 5
    _serials: ClassVar[itertools.count] = itertools.count()  # the cache's keys: an id() is reused once freed

    def __init__(self, blocks: np.ndarray, kind: int, stored_shape: tuple[int, int]):
        # the blocks of the stored (d_out, d_in) rows, split once into their scales, minimums and numbers
        self.parts = split_blocks(blocks, kind)
        self.kind = kind
        self.stored_shape = stored_shape
        self.shape = (stored_shape[1], stored_shape[0])
        self.size = stored_shape[0] * stored_shape[1]
        self.dtype = np.dtype(np.float32)
        self.nbytes = sum(a.nbytes for a in self.parts if a is not None)
        self.serial = next(self._serials)

    def unpacked(self) -> np.ndarray:
        """The matrix as float32, (d_in, d_out) (a read-only transposed view of the stored rows)."""
        key = self.serial
        with self._lock:
            if key in self._recent:
                self._recent.move_to_end(key)
                return self._recent[key]
        out = unpack(*self.parts).reshape(self.stored_shape).T
        out.setflags(write=False)
        with self._lock:
            self._recent[key] = out
            while len(self._recent) > self.KEEP:
                self._recent.popitem(last=False)
        return out

    def __rmatmul__(self, x: np.ndarray) -> np.ndarray:
        return x @ self.unpacked()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.unpacked()
        return out if dtype is None else out.astype(dtype)


class QuantizedTable:
    """A (rows, width) table kept in its Q8_0 blocks, read in place from the file: a token embedding whose rows
    are unpacked when looked up, and which a tied output head multiplies block by block.

    Gemma 3's 262,144 × 640 table is 168 million numbers: 671 MB as float32, 178 MB in its blocks. The output
    head's scores x · W_E[r] are taken a slice of rows at a time: the slice unpacked (q_rb d_rb, 5 MB as float32,
    which stays in the processor's cache) and multiplied by x in one matrix product. The blocks' scales d_rb are
    read out once (10 MB as float16). Summed block by block instead (Σ_b d_rb (q_rb · x_b)), the same scores took
    three times as long: a batched product of 20 blocks of 32 numbers is no work for a matrix library.
    """

    __array_ufunc__ = None
    ROWS_AT_ONCE: ClassVar[int] = 2_048

    def __init__(self, blocks: np.ndarray, shape: tuple[int, int]):
        rows, n_blocks, _ = blocks.shape  # (rows, blocks per row, 34 bytes)
        self.blocks = blocks
        self.shape = shape
        self.size = rows * shape[1]
        self.dtype = np.dtype(np.float32)
        self.nbytes = blocks.nbytes
        self.n_blocks = n_blocks
        self._scales: np.ndarray | None = None  # (rows, blocks) float16, read out at the first scores()

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, ids) -> np.ndarray:
        """Rows by index (an id, a list of ids, a slice), unpacked to float32."""
        picked = self.blocks[ids]
        lead = picked.shape[:-2]
        d, _, q = split_blocks(picked.reshape(-1, picked.shape[-1]), Q8_0)
        return unpack(d, None, q).reshape(*lead, self.shape[1])

    def scores(self, x: np.ndarray) -> np.ndarray:
        """x @ tableᵀ: (n, width) -> (n, rows), every row's dot product with each x, a slice of rows at a time."""
        x = np.asarray(x, dtype=np.float32)
        if self._scales is None:
            self._scales = np.ascontiguousarray(self.blocks[..., :2]).view("<f2")[..., 0]  # (rows, blocks)
        q = self.blocks[..., 2:].view(np.int8)  # (rows, blocks, 32), in place
        out = np.empty((x.shape[0], self.shape[0]), dtype=np.float32)
        for start in range(0, self.shape[0], self.ROWS_AT_ONCE):
            d = self._scales[start : start + self.ROWS_AT_ONCE].astype(np.float32)  # (r, blocks)
            w = q[start : start + len(d)] * d[..., None]  # (r, blocks, 32): the rows unpacked, float32
            out[:, start : start + len(d)] = x @ w.reshape(len(d), -1).T
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype)
