"""The one-line machine description the benchmarks and ``spielwerk bench`` print."""

from __future__ import annotations

import builtins
import os
import platform

from spielwerk.core import machine


def test_cpu_model_reads_the_model_name(monkeypatch, tmp_path) -> None:
    fake = tmp_path / "cpuinfo"
    fake.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU 9000  \n")
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: real_open(
        fake if path == "/proc/cpuinfo" else path, *a, **k))
    assert machine.cpu_model() == "Test CPU 9000"


def test_cpu_model_without_cpuinfo_falls_back_to_the_architecture(monkeypatch) -> None:
    def refuse(path, *a, **k):
        raise OSError("no such file")

    monkeypatch.setattr(builtins, "open", refuse)
    assert machine.cpu_model() == (platform.processor() or platform.machine())


def test_describe_names_cores_python_and_load(monkeypatch) -> None:
    monkeypatch.setattr(machine, "cpu_model", lambda: "Test CPU")
    line = machine.describe()
    assert line.startswith(f"Test CPU, {os.cpu_count()} cores")
    assert f"Python {platform.python_version()}" in line
    assert "load " in line and " GiB" in line
