"""Building a knowledge base: chunks of deals solved on an arena executor, resumable.

:func:`build_base` runs two stages over the same deals (:mod:`deals`):

1. **hand** - every deal solved for the five suit/grand games and null;
2. **pick-up** - the skat taken and two cards put by KNN over the hand base
   just built (or over ``put_base``), then solved again.

Each chunk of ``chunk`` deals is one task on the executor (a process pool,
in-process, or a Dask cluster) and one shard on disk (:mod:`store`); the
manifest lists finished shards only, so ``resume=True`` recomputes exactly
the chunks that were missing. Deals depend only on (seed, deal id), so the
result is the same on any executor and after any number of interruptions.
"""

from __future__ import annotations

import datetime
import itertools
import platform
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.estimate import MAX_RUN_SECONDS, duration, physical_memory, size
from spielwerk.core.parallel import Executor, SerialExecutor
from spielwerk.games.skat_ai.knowledge import store
from spielwerk.games.skat_ai.knowledge.deals import (
    WEAK_ACCEPT,
    label_hand,
    label_pickup,
    make_deal,
)
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError

DEFAULT_CHUNK = 50
DEFAULT_PUT_K = 12
MAX_DEALS = int(np.iinfo(store.HAND_FIELDS["deal_id"]).max)
"""Deal ids are stored as int32: at most 2**31 - 1 deals."""
MAX_BUILD_SECONDS = MAX_RUN_SECONDS
"""A build estimated to take longer than a year (wall clock) is refused."""
WINDOW = 1024
"""Chunks handed to the executor at a time: the task lists never grow with --deals."""
CPU_PER_DEAL = 0.83
"""CPU seconds per deal, both stages (the shipped base's measure, when it cannot be read)."""
DISK_PER_DEAL = 141.0
"""Bytes on disk per deal, both stages' shards (the shipped base's measure)."""
MEMORY_PER_DEAL = 1200.0
"""Bytes of memory per deal when a base is used (:class:`~spielwerk.games.skat_ai.knn.
KnnModel`: features, trees and labels; measured on the shipped base)."""

Progress = Callable[[str, int, int], None]


def hand_chunk(task: tuple[int, int, int, float]) -> dict[str, Any]:
    """Worker: hand-stage labels of deals ``first .. first + count - 1``."""
    seed, first, count, weak_accept = task
    t0 = time.process_time()
    rows = [label_hand(seed, i, weak_accept) for i in range(first, first + count)]
    return {
        "stage": "hand", "first": first, "cpu": time.process_time() - t0,
        "arrays": {
            "deal_id": np.array([r["deal_id"] for r in rows]),
            "position": np.array([r["position"] for r in rows]),
            "hands": np.array([r["hands"] for r in rows], dtype=np.uint32),
            "skat": np.array([r["skat"] for r in rows], dtype=np.uint32),
            "points": np.array([r["points"] for r in rows]),
            "schwarz": np.array([r["schwarz"] for r in rows]),
            "null": np.array([r["null"] for r in rows]),
        },
    }


_PUT_MODELS: dict[tuple[str, int, str], Any] = {}


def puts_for(seed: int, first: int, count: int, put_base: str, put_k: int,
             put_scaling: str = "none", weak_accept: float = WEAK_ACCEPT) -> list[list[int]]:
    """The KNN puts (6 masks per deal: games 0..5) of a chunk, over the base ``put_base``."""
    from spielwerk.games.skat_ai.knn import KnnModel

    key = (put_base, put_k, put_scaling)
    if key not in _PUT_MODELS:
        _PUT_MODELS[key] = KnnModel.load(put_base, k=put_k, need_pickup=False,
                                         scaling=put_scaling)
    model = _PUT_MODELS[key]
    out = []
    for i in range(first, first + count):
        position, hands, skat = make_deal(seed, i, weak_accept)
        twelve = hands[position] | skat
        out.append([model.best_put(twelve, g)[0] for g in range(6)])
    return out


def pickup_chunk(task: tuple[int, int, int, str, int, str, float]) -> dict[str, Any]:
    """Worker: pick-up labels of a chunk; the puts by KNN over ``put_base`` (a directory
    every worker can read, e.g. the shipped base)."""
    seed, first, count, put_base, put_k, put_scaling, weak_accept = task
    t0 = time.process_time()
    puts = puts_for(seed, first, count, put_base, put_k, put_scaling, weak_accept)
    rows = [label_pickup(seed, first + j, p, weak_accept) for j, p in enumerate(puts)]
    return {
        "stage": "pickup", "first": first, "cpu": time.process_time() - t0,
        "arrays": {
            "deal_id": np.array([r["deal_id"] for r in rows]),
            "puts": np.array(puts, dtype=np.uint32),
            "points": np.array([r["points"] for r in rows]),
            "null": np.array([r["null"] for r in rows]),
        },
    }


def both_chunk(task: tuple[int, int, int, str, int, str, float]) -> list[dict[str, Any]]:
    """Worker: both stages of a chunk (the puts come from a separate ``put_base``)."""
    seed, first, count, _, _, _, weak_accept = task
    return [hand_chunk((seed, first, count, weak_accept)), pickup_chunk(task)]


def make_build_executor(spec: str = "local", workers: int | None = 1) -> Executor:
    """An arena executor that sends one chunk per task (a chunk is already minutes of
    work), so every finished chunk is saved at once and progress moves per chunk."""
    from spielwerk.core.parallel import DaskExecutor, LocalProcessExecutor, make_executor

    text = spec.strip()
    if text in ("local", "pool", "process"):
        return LocalProcessExecutor(workers, batch_size=1)
    if text.startswith(("dask://", "tcp://")) and len(text.split("://", 1)[1]) > 0:
        return DaskExecutor(text, batch_size=1)
    return make_executor(text, workers)


def _new_manifest(deals: int, seed: int, chunk: int, put_k: int, put_base: str | None,
                  put_scaling: str = "none", weak_accept: float = WEAK_ACCEPT
                  ) -> dict[str, Any]:
    return {
        "format": store.FORMAT,
        "format_version": store.FORMAT_VERSION,
        "parameters": {"deals": deals, "seed": seed, "chunk": chunk, "put_k": put_k,
                       "put_scaling": put_scaling,
                       "put_base": put_base, "solver": "spielwerk dds exact, tt_log2=18",
                       "card_floor": deals // 32,
                       "weak_accept": weak_accept,
                       "deal": "deal i: rng([seed, i]); declarer position i % 3; card i % 32 "
                               "in the declarer's hand; a declarer hand that is not biddable "
                               "is kept with probability weak_accept"},
        "stages": {s: {"complete": False, "shards": {}, "cpu_seconds": 0.0,
                       "wall_seconds": 0.0} for s in store.STAGES},
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }


def _chunks(deals: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(first deal, count) of every chunk, generated: 10**9 deals are no list of tuples."""
    return ((f, min(chunk, deals - f)) for f in range(0, deals, chunk))


@dataclass(frozen=True)
class BuildEstimate:
    """What building ``deals`` (``todo`` of them not built yet) takes, from measures."""

    deals: int
    todo: int
    workers: int
    cpu_per_deal: float
    disk_per_deal: float

    @property
    def cpu_seconds(self) -> float:
        return self.todo * self.cpu_per_deal

    @property
    def wall_seconds(self) -> float:
        return self.cpu_seconds / self.workers

    @property
    def disk_bytes(self) -> float:
        return self.todo * self.disk_per_deal

    @property
    def memory_bytes(self) -> float:
        """Memory to use the finished base (a KNN model over all its deals)."""
        return self.deals * MEMORY_PER_DEAL

    def describe(self) -> str:
        return (f"about {duration(self.wall_seconds)} of solving on {self.workers} "
                f"worker{'s' if self.workers != 1 else ''} ({self.cpu_per_deal:.2f} CPU s "
                f"per deal), {size(self.disk_bytes)} on disk; using the base takes about "
                f"{size(self.memory_bytes)} of memory")


def _measures() -> tuple[float, float]:
    """(CPU seconds, bytes on disk) per deal of the shipped base, or the stored defaults."""
    directory = store.default_base_dir()
    try:
        manifest = store.read_manifest(directory)
        deals = int(manifest["parameters"]["deals"])
        cpu = sum(float(s["cpu_seconds"]) for s in manifest["stages"].values())
        disk = sum(p.stat().st_size for p in directory.glob("*.npz"))
        if deals > 0 and cpu > 0 and disk > 0:
            return cpu / deals, disk / deals
    except (KnowledgeBaseError, OSError, KeyError, TypeError, ValueError):
        pass
    return CPU_PER_DEAL, DISK_PER_DEAL


def _workers_of(executor: Executor) -> int:
    workers = getattr(executor, "workers", None)
    if workers is None and hasattr(executor, "_workers"):  # Dask: the cluster's threads
        try:
            workers = executor._workers()
        except Exception:  # noqa: BLE001 - an unreachable cluster fails later, clearly
            workers = None
    return max(1, int(workers or 1))


def free_disk(directory: Path) -> int | None:
    """Free bytes where ``directory`` is (or would be made)."""
    folder = directory
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return int(shutil.disk_usage(folder).free)
    except OSError:
        return None


def estimate_build(deals: int, done: int = 0, workers: int = 1) -> BuildEstimate:
    """What building ``deals`` takes, ``done`` of them already built."""
    cpu, disk = _measures()
    return BuildEstimate(deals, max(0, deals - done), max(1, workers), cpu, disk)


def check_feasible(est: BuildEstimate, directory: Path) -> None:
    """Refuse, with the estimate, a build that cannot be done here: over a year of solving,
    more shards than the free disk takes, or a base too big for this machine's memory."""
    problems = []
    if est.wall_seconds > MAX_BUILD_SECONDS:
        problems.append(f"solving takes about {duration(est.wall_seconds)} on {est.workers} "
                        f"worker{'s' if est.workers != 1 else ''} ({est.cpu_per_deal:.2f} CPU s "
                        f"per deal, measured; at most a year is accepted)")
    free = free_disk(directory)
    if free is not None and est.disk_bytes > free:
        problems.append(f"the shards need about {size(est.disk_bytes)} on disk "
                        f"({size(free)} free for {directory})")
    memory = physical_memory()
    if memory is not None and est.memory_bytes > memory:
        problems.append(f"using the base needs about {size(est.memory_bytes)} of memory "
                        f"(this machine has {size(memory)})")
    if not problems:
        return
    fits = [MAX_DEALS]
    fits.append(int(MAX_BUILD_SECONDS * est.workers / est.cpu_per_deal) + est.deals - est.todo)
    if free is not None:
        fits.append(int(free / est.disk_per_deal) + est.deals - est.todo)
    if memory is not None:
        fits.append(int(memory / MEMORY_PER_DEAL))
    raise KnowledgeBaseError(f"--deals {est.deals} cannot be built here: "
                             + "; ".join(problems)
                             + f"; at most about {max(1, min(fits)):,} deals can be")


def _run_tasks(directory: Path, manifest: dict[str, Any], stages: tuple[str, ...],
               tasks: Iterable[Any], fn: Callable[[Any], Any], executor: Executor,
               progress: Progress | None, total: int) -> None:
    """Run tasks; each result (or list of results) is one shard per stage, saved at once.
    The tasks are handed to the executor :data:`WINDOW` at a time, so neither they nor the
    executor's lists of them grow with the number of deals."""
    infos = [manifest["stages"][s] for s in stages]
    label = "+".join(stages)
    done = sum(e["count"] for e in infos[-1]["shards"].values())
    if progress:
        progress(label, done, total)
    t0 = time.perf_counter()
    pending = iter(tasks)
    while window := list(itertools.islice(pending, WINDOW)):
        for out in executor.map_unordered(fn, window):
            results = out if isinstance(out, list) else [out]
            wall = time.perf_counter() - t0
            t0 = time.perf_counter()
            for result in results:
                info = manifest["stages"][result["stage"]]
                entry = store.write_shard(directory, result["stage"], result["first"],
                                          result["arrays"])
                info["shards"][store.shard_name(result["stage"], result["first"])] = entry
                info["cpu_seconds"] = round(info["cpu_seconds"] + result["cpu"], 3)
                info["wall_seconds"] = round(info["wall_seconds"] + wall / len(results), 3)
            store.write_manifest(directory, manifest)
            done += results[-1]["arrays"]["deal_id"].shape[0]
            if progress:
                progress(label, done, total)
    for info in infos:
        info["complete"] = True
    store.write_manifest(directory, manifest)


def _check_resume(old: dict[str, Any], new: dict[str, Any], directory: Path) -> None:
    keys = ("seed", "chunk", "put_k", "put_base", "put_scaling", "weak_accept")
    defaults: dict[str, Any] = {"put_scaling": "none"}  # bases written before the option
    diff = [k for k in keys
            if old["parameters"].get(k, defaults.get(k)) != new["parameters"].get(k)]
    if diff:
        shown = ", ".join(f"{k} {old['parameters'].get(k)} (asked {new['parameters'].get(k)})"
                          for k in diff)
        raise KnowledgeBaseError(
            f"{directory} was built with other parameters: {shown}; resume with the same "
            f"parameters or build into a new directory")


def build_base(
    out: Path | str,
    deals: int,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
    executor: Executor | None = None,
    resume: bool = False,
    put_k: int = DEFAULT_PUT_K,
    put_base: Path | str | None = None,
    progress: Progress | None = None,
    put_scaling: str = "none",
    weak_accept: float = WEAK_ACCEPT,
    on_estimate: Callable[[BuildEstimate], None] | None = None,
) -> dict[str, Any]:
    """Build (or finish, with ``resume``) a base of ``deals`` deals in ``out``; the manifest.

    Before anything is written the work is estimated (``on_estimate`` gets it) and a build
    that cannot be done here is refused (:func:`check_feasible`); the work is then streamed
    chunk by chunk, so memory does not grow with ``deals``."""
    if deals < 1:
        raise KnowledgeBaseError(f"--deals must be at least 1, not {deals}")
    if deals > MAX_DEALS:
        raise KnowledgeBaseError(f"--deals must be at most {MAX_DEALS} (deal ids are 32-bit), "
                                 f"not {deals}")
    if chunk < 1:
        raise KnowledgeBaseError(f"--chunk must be at least 1, not {chunk}")
    if put_scaling not in ("none", "std"):
        raise KnowledgeBaseError(f"--put-scaling must be none or std, not {put_scaling!r}")
    if put_base is not None:
        store.read_manifest(Path(put_base))  # a clear error before anything is written
    directory = Path(out)
    if not 0.0 < weak_accept <= 1.0:
        raise KnowledgeBaseError(f"--weak-accept must be in (0, 1], not {weak_accept}")
    manifest = _new_manifest(deals, seed, chunk, put_k, str(put_base) if put_base else None,
                             put_scaling, weak_accept)
    if (directory / store.MANIFEST).exists():
        if not resume:
            raise KnowledgeBaseError(f"{directory} already holds a knowledge base; add --resume "
                                     f"to finish it or choose another --out")
        old = store.read_manifest(directory)
        _check_resume(old, manifest, directory)
        done = sum(e["count"] for e in old["stages"]["pickup"]["shards"].values()
                   if e["first"] + e["count"] <= deals)
        est = estimate_build(deals, done, _workers_of(executor or SerialExecutor()))
        check_feasible(est, directory)
        manifest = old
        manifest["parameters"]["deals"] = deals  # a base may be extended or cut back
        manifest["parameters"]["card_floor"] = deals // 32
        for stage in store.STAGES:  # forget shards whose file went missing or changed
            shards = manifest["stages"][stage]["shards"]
            for name in list(shards):
                path = directory / name
                beyond = shards[name]["first"] + shards[name]["count"] > deals
                if beyond or not path.is_file() or store.sha256_of(path) != shards[name]["sha256"]:
                    del shards[name]
                    if beyond and path.is_file():
                        path.unlink()
                manifest["stages"][stage]["complete"] = False
    elif directory.exists() and not directory.is_dir():
        raise KnowledgeBaseError(f"--out {directory} is a file, not a directory")
    elif directory.is_dir() and any(directory.iterdir()):
        # a base's files among someone else's (--out ~/Documents): its manifest is
        # written before any shard, so a folder of ours always has one
        raise KnowledgeBaseError(f"--out {directory} holds other files and no knowledge "
                                 "base; choose a new or empty folder")
    else:
        est = estimate_build(deals, 0, _workers_of(executor or SerialExecutor()))
        check_feasible(est, directory)
    if on_estimate is not None:
        on_estimate(est)
    directory.mkdir(parents=True, exist_ok=True)
    store.write_manifest(directory, manifest)
    executor = executor or SerialExecutor()

    def missing(*stages: str) -> Iterator[tuple[int, int]]:
        """The chunks not yet built in every one of ``stages`` (generated, in order)."""
        shards = [manifest["stages"][stage]["shards"] for stage in stages]
        return ((f, n) for f, n in _chunks(deals, chunk)
                if all(store.shard_name(stage, f) not in built
                       for stage, built in zip(stages, shards, strict=True)))

    if put_base is not None:  # both stages chunk by chunk: a cut-back base is usable at once
        where = str(Path(put_base).resolve())
        store.read_manifest(Path(where))  # a clear error now rather than in a worker
        _run_tasks(directory, manifest, ("hand", "pickup"),
                   ((seed, f, n, where, put_k, put_scaling, weak_accept)
                    for f, n in missing("hand", "pickup")),
                   both_chunk,
                   executor, progress, deals)
    _run_tasks(directory, manifest, ("hand",),
               ((seed, f, n, weak_accept) for f, n in missing("hand")),
               hand_chunk, executor, progress, deals)
    where = str(Path(put_base or directory).resolve())
    _run_tasks(directory, manifest, ("pickup",),
               ((seed, f, n, where, put_k, put_scaling, weak_accept)
                for f, n in missing("pickup")),
               pickup_chunk,
               executor, progress, deals)
    manifest["stages"]["pickup"]["complete"] = True
    store.write_manifest(directory, manifest)

    manifest["counts"] = stream_counts(directory, manifest)
    store.write_manifest(directory, manifest)
    return manifest


def stream_counts(directory: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """:func:`base_counts` of a finished base, read shard by shard (each one checked) so
    memory does not grow with the base; the deal ids of both stages must agree."""
    stages = manifest["stages"]
    hand_entries = sorted(stages["hand"]["shards"].values(), key=lambda e: e["first"])
    pick_entries = {e["first"]: e for e in stages["pickup"]["shards"].values()}
    total: dict[str, Any] = {}
    for entry in hand_entries:
        hand = store.read_shard(directory, "hand", entry)
        pick_entry = pick_entries.get(entry["first"])
        if pick_entry is None:
            raise KnowledgeBaseError(f"knowledge base {directory}: pick-up and hand stages "
                                     f"hold different deals; {store.rebuild_hint(directory)}")
        pickup = store.read_shard(directory, "pickup", pick_entry)
        if not np.array_equal(pickup["deal_id"], hand["deal_id"]):
            raise KnowledgeBaseError(f"knowledge base {directory}: pick-up and hand stages "
                                     f"hold different deals; {store.rebuild_hint(directory)}")
        part = base_counts(hand, pickup, 0)
        part["per_card"] = _per_card(hand)
        del part["card_in_declarer_hand_min"], part["card_in_declarer_hand_max"]
        for key, value in part.items():
            if key not in total:
                total[key] = value
            elif isinstance(value, list):
                total[key] = [x + y for x, y in zip(total[key], value, strict=True)]
            else:
                total[key] += value
    per_card = total.pop("per_card", [0] * 32)
    total["card_in_declarer_hand_min"] = min(per_card)
    total["card_in_declarer_hand_max"] = max(per_card)
    return total


def _per_card(hand: dict[str, np.ndarray]) -> list[int]:
    """How often each card is in the declarer's hand."""
    pos = hand["position"].astype(np.int64)
    decl = hand["hands"].astype(np.int64)[np.arange(len(pos)), pos]
    return [int(((decl >> c) & 1).sum()) for c in range(32)]


def base_counts(hand: dict[str, np.ndarray], pickup: dict[str, np.ndarray] | None,
                seed: int) -> dict[str, Any]:
    """Counts written to the manifest: deals, card appearances, wins per game."""
    pos = hand["position"].astype(np.int64)
    per_card = _per_card(hand)
    pts = hand["points"].astype(np.int64)
    out: dict[str, Any] = {
        "deals": int(len(pos)),
        "positions": [int((pos == p).sum()) for p in range(3)],
        "card_in_declarer_hand_min": min(per_card),
        "card_in_declarer_hand_max": max(per_card),
        "hand_won_61": [int((pts[:, g] >= 61).sum()) for g in range(5)],
        "hand_schneider_90": [int((pts[:, g] >= 90).sum()) for g in range(5)],
        "hand_schwarz": [int(hand["schwarz"][:, g].sum()) for g in range(5)],
        "hand_null_won": int(hand["null"].sum()),
    }
    if pickup is not None:
        pp = pickup["points"].astype(np.int64)
        out["pickup_won_61"] = [int((pp[:, g] >= 61).sum()) for g in range(5)]
        out["pickup_schneider_90"] = [int((pp[:, g] >= 90).sum()) for g in range(5)]
        out["pickup_null_won"] = int(pickup["null"].sum())
    return out
