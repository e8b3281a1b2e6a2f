"""What every bench figure is printed with: the CPU model and the load (figures compare only on one machine)."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo), else what the platform says."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def load() -> str:
    """The load averages and the number of cores, e.g. ``load average 0.50 0.40 0.30 on 2 cores``."""
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"
