"""The soak's figures (bench/soak.py): growth after the warm-up, percentiles, the block's honesty."""

from __future__ import annotations

from bench import line_chart
from bench.soak import DriverRun, Sample, chart, growth_per_1000, percentile, section


def run_with(server: list[float], driver: list[float] | None = None, every: int = 1000) -> DriverRun:
    run = DriverRun("tabmcp-cdp", navigations=every * (len(server) - 1), calls=10)
    for i, mb in enumerate(server):
        node = driver[i] if driver else None
        run.samples.append(Sample(i * every, 0, float(i), mb, node, 300.0))
    run.latencies = {"navigate": [0.1, 0.2, 0.3, 0.4], "snapshot": [0.01]}
    return run


def test_growth_is_measured_after_the_warm_up() -> None:
    # 4,000 navigations: the first 1,000 are the warm-up (a Playwright cap filling up), then flat
    run = run_with([90, 103, 103.5, 104, 104.5], driver=[140, 170, 170, 171, 170])
    assert growth_per_1000(run, "server_mb") == 0.5
    assert round(growth_per_1000(run, "driver_mb") or 0, 3) == 0.1
    assert growth_per_1000(run_with([90, 91, 92, 93, 94]), "driver_mb") is None  # no node driver


def test_a_noisy_band_is_not_growth_and_a_climb_is() -> None:
    # RSS moving up and down in a band (the node driver's heap resizing) and ending on a high sample:
    # the last sample minus the warm-up's would say +11.4 MB per 1,000; the line through them, 3.8
    band = run_with([130, 180, 140, 180, 140, 180, 140, 180, 140, 180], every=500)
    growth = growth_per_1000(band, "server_mb")
    assert growth is not None and round(growth, 1) == 3.8
    climb = run_with([100, 110, 120, 130, 140, 150], every=500)
    assert growth_per_1000(climb, "server_mb") == 20.0  # 10 MB per 500 navigations


def test_percentiles_pick_from_the_sorted_values() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 51  # the value at index round(0.5 * 99)
    assert percentile(values, 0.99) == 99
    assert percentile([7.0], 0.9) == 7.0


def test_a_reduced_run_says_so_and_the_chart_has_one_line_per_driver_and_process() -> None:
    run = run_with([90, 91, 91])
    text = section([run], 2000, 5000, full=False)
    assert "a reduced run" in text and "2,000 navigations" in text
    assert "| tabmcp (CDP) | 2,000 |" in text
    drawn = chart([run])
    assert [p.title.split(",")[0] for p in drawn.panels] == ["tabmcp server", "Chromium"]  # no node figures
    assert drawn.panels[0].lines[0].points == ((0.0, 90.0), (1000.0, 91.0), (2000.0, 91.0))
    image = line_chart.render(drawn)
    assert image.width == line_chart.WIDTH and image.height > 2 * line_chart.PANEL_H
