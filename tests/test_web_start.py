"""A later start answers at once: the lobby's probed limits and the kernels' warm-up stamp
are kept beside the kernels for the very sources that made them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import spielwerk.web.server as server_mod
from spielwerk import warmup


def test_a_later_start_reads_the_lobby_limits_instead_of_probing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    probes: list[str] = []

    class Face:
        def __init__(self, game: Any) -> None:
            self.game = game

        def lobby_limits(self) -> dict[str, Any] | None:
            probes.append(self.game.name)
            return {"random": {"pits": {"min": 1, "max": 7}}}

    monkeypatch.setattr(server_mod, "table_face", Face)
    for game in ("kalah", "kalah"):  # the first start probes once
        monkeypatch.setattr(server_mod, "_saved", None)
        assert server_mod.lobby_limits(game) == {"random": {"pits": {"min": 1, "max": 7}}}
    assert probes == ["kalah"] and (tmp_path / server_mod.LIMITS_FILE).is_file()
    # other sources (another digest): probed again, not read
    monkeypatch.setattr("spielwerk._jit.source_digest", lambda: "other")
    monkeypatch.setattr(server_mod, "_saved", None)
    server_mod.lobby_limits("kalah")
    assert probes == ["kalah", "kalah"]
    # a damaged file is probed over, not an error
    (tmp_path / server_mod.LIMITS_FILE).write_text("{not json")
    monkeypatch.setattr(server_mod, "_saved", None)
    server_mod.lobby_limits("kalah")
    assert probes == ["kalah", "kalah", "kalah"]


def test_the_warm_up_stamp_holds_for_the_sources_that_made_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not warmup.kernels_warm()
    warmup.stamp()
    assert warmup.kernels_warm()
    monkeypatch.setattr("spielwerk._jit.source_digest", lambda: "edited")
    assert not warmup.kernels_warm()  # edited sources: their kernels are compiled again
