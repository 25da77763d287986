"""Knowledge bases on disk: npz shards plus a JSON manifest, checked on load.

Layout of a base directory::

    manifest.json            format, format_version, parameters, seed, counts, checksums
    hand-0000000.npz ...     hand-stage labels, one shard per chunk of deals
    pickup-0000000.npz ...   pick-up-stage labels, same chunks

Every shard is written to a temporary name and renamed, and the manifest
(rewritten the same way) lists a shard only once it is complete, with its
SHA-256. A shard missing from the manifest is recomputed on ``--resume``;
nothing is ever appended in place, so a kill at any moment loses at most
the chunks in flight and never duplicates a deal.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError

FORMAT = "spielwerk-skat-kb"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"

HAND_FIELDS = {
    "deal_id": np.int32, "position": np.int8, "hands": np.uint32, "skat": np.uint32,
    "points": np.int8, "schwarz": np.bool_, "null": np.bool_,
}
PICKUP_FIELDS = {"deal_id": np.int32, "puts": np.uint32, "points": np.int8, "null": np.bool_}
STAGES = ("hand", "pickup")


class KnowledgeBaseError(SpielwerkError, ValueError):
    """A knowledge base that is missing, damaged, of another format, or cannot be built."""


def default_base_dir() -> Path:
    """The base shipped with the package (``spielwerk/data/skat_kb``)."""
    return Path(__file__).resolve().parents[3] / "data" / "skat_kb"


def rebuild_hint(directory: Path | str) -> str:
    return f"rebuild it with: spielwerk skat kb build --deals N --out {directory}"


def resume_hint(directory: Path, manifest: dict[str, Any]) -> str:
    p = manifest.get("parameters", {})
    extra = f" --put-base {p['put_base']}" if p.get("put_base") else ""
    return (f"finish it with: spielwerk skat kb build --deals {p.get('deals', 'N')} "
            f"--seed {p.get('seed', 0)} --chunk {p.get('chunk', 50)}{extra} --out {directory} "
            f"--resume")


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_name(stage: str, first: int) -> str:
    return f"{stage}-{first:07d}.npz"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_shard(directory: Path, stage: str, first: int,
                arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Write one shard atomically; returns its manifest entry."""
    import io

    fields = HAND_FIELDS if stage == "hand" else PICKUP_FIELDS
    buf = io.BytesIO()
    typed: dict[str, Any] = {k: np.asarray(arrays[k], dtype=t) for k, t in fields.items()}
    np.savez_compressed(buf, **typed)
    path = directory / shard_name(stage, first)
    atomic_write_bytes(path, buf.getvalue())
    return {"first": first, "count": int(len(arrays["deal_id"])), "sha256": sha256_of(path)}


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    atomic_write_bytes(directory / MANIFEST,
                       (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())


def read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / MANIFEST
    if not path.is_file():
        raise KnowledgeBaseError(f"knowledge base {path} is missing; {rebuild_hint(directory)}")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise KnowledgeBaseError(
            f"knowledge base {path} is unreadable ({exc}); {rebuild_hint(directory)}"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise KnowledgeBaseError(f"{path} is not a spielwerk Skat knowledge base manifest; "
                                 f"{rebuild_hint(directory)}")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise KnowledgeBaseError(
            f"knowledge base {path} has format version {version}, this spielwerk reads "
            f"version {FORMAT_VERSION}; {rebuild_hint(directory)}"
        )
    return manifest


def base_fingerprint(directory: Path | str) -> dict[str, Any]:
    """What identifies a base for a results file: its directory, deals, seed and the SHA-256
    of its manifest (which holds every shard's checksum)."""
    directory = Path(directory).resolve()
    manifest = read_manifest(directory)
    params = manifest.get("parameters") or {}
    return {
        "dir": str(directory),
        "deals": int((manifest.get("counts") or {}).get("deals", params.get("deals", 0))),
        "seed": params.get("seed"),
        "manifest_sha256": sha256_of(directory / MANIFEST),
    }


def read_shard(directory: Path, stage: str, entry: dict[str, Any]) -> dict[str, np.ndarray]:
    """Load one shard, checking its checksum and fields."""
    path = directory / shard_name(stage, int(entry["first"]))
    if not path.is_file():
        raise KnowledgeBaseError(
            f"knowledge base file {path} is missing; {rebuild_hint(directory)}")
    if sha256_of(path) != entry.get("sha256"):
        raise KnowledgeBaseError(
            f"knowledge base file {path} is damaged (checksum mismatch); {rebuild_hint(directory)}"
        )
    fields = HAND_FIELDS if stage == "hand" else PICKUP_FIELDS
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in fields}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise KnowledgeBaseError(
            f"knowledge base file {path} cannot be read ({exc}); {rebuild_hint(directory)}"
        ) from None
    n = int(entry["count"])
    if any(len(a) != n for a in arrays.values()):
        raise KnowledgeBaseError(f"knowledge base file {path} holds the wrong number of deals; "
                                 f"{rebuild_hint(directory)}")
    return arrays


@dataclass
class BaseData:
    """A loaded base: the hand stage for every deal, the pick-up stage where built."""

    directory: Path
    manifest: dict[str, Any]
    hand: dict[str, np.ndarray]
    pickup: dict[str, np.ndarray] | None

    @property
    def deals(self) -> int:
        return int(len(self.hand["deal_id"]))


def _concat(parts: list[dict[str, np.ndarray]], fields: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in fields}


def load_base(directory: Path | str, need_pickup: bool = True) -> BaseData:
    """Read and check a complete base (the pick-up stage too unless ``need_pickup`` is False)."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    stages = manifest.get("stages", {})
    hand_stage = stages.get("hand", {})
    if not hand_stage.get("complete"):
        raise KnowledgeBaseError(f"knowledge base {directory} is not finished (hand stage); "
                                 f"{resume_hint(directory, manifest)}")
    hand_entries = sorted(hand_stage["shards"].values(), key=lambda e: e["first"])
    hand = _concat([read_shard(directory, "hand", e) for e in hand_entries], HAND_FIELDS)
    pickup = None
    pick_stage = stages.get("pickup", {})
    if pick_stage.get("complete"):
        entries = sorted(pick_stage["shards"].values(), key=lambda e: e["first"])
        pickup = _concat([read_shard(directory, "pickup", e) for e in entries], PICKUP_FIELDS)
        if not np.array_equal(pickup["deal_id"], hand["deal_id"]):
            raise KnowledgeBaseError(f"knowledge base {directory}: pick-up and hand stages "
                                     f"hold different deals; {rebuild_hint(directory)}")
    elif need_pickup:
        raise KnowledgeBaseError(f"knowledge base {directory} is not finished (pick-up stage); "
                                 f"{resume_hint(directory, manifest)}")
    return BaseData(directory, manifest, hand, pickup)
