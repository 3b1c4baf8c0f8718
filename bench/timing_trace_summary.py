#!/usr/bin/env python3
"""What a judge's timing trace says, one timed measurement at a time.

Reads files written with CUDALABS_TIMING_TRACE=FILE (common/src/timing/interleaved.cu,
SampleTrace): a `# warm-up` line opens each measurement (a timed case, or its remeasurement), then
ping lines (round -1) and one line per sample:

    ROUND SIDE RAW_MS SCORED_MS RUNNER_HOST_MS WALL_MS CHECK_BEFORE_MS CHECK_AFTER_MS TRUSTED_WAIT_US STUDENT_WAIT_US

(older traces stop earlier or have one wait column; on a ping line the waits are its 7th and 8th figures).
RUNNER_HOST_MS is the host time, request to reply, of the window's last call (of a ping line, the
ping's); in traces before 2026-11-27's change the student's lines held the checker's verify call
made after the window instead (about one call plus a round trip), so only the reference's compare.
Prints per measurement: the rounds, the round trips to each runner, each side's median window as
measured and as scored, the host time of the window's last call, how long the timed threads waited for a CPU in
the windows (rounds with a wait above 20 us are measured again by the judge), the median ratio of
the rounds kept (the summary counts a wait of either kind; the judge counts the student's
only once a trusted thread's has shown outside load), and the device-idle checks by where they were made (after each side's calls; before each
side's window, by whose calls came last: rounds run S R | R S | S R ...), with how many were more
than 50 us above their position's median (timing::BusyDeviceRule's margin).

    bench/timing_trace_summary.py TRACE...
"""
import statistics
import sys

MARGIN_MS = 0.05  # kOutstandingWorkLimitMs
DISTURBING_WAIT_US = 20  # kDisturbingCpuWaitUs


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def read_measurements(path):
    measurements, current = [], None
    with open(path) as trace:
        for number, line in enumerate(trace, 1):
            if line.startswith("# warm-up"):
                current = {"pings": {}, "samples": []}
                measurements.append(current)
                continue
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if current is None or len(fields) < 6:
                sys.exit(f"{path}:{number}: expected a '# warm-up' line before it and at least 6 fields "
                         "(round side raw scored runner_host wall)")
            try:
                round_index = int(fields[0])
                numbers = [float(x) for x in fields[2:]]
            except ValueError:
                sys.exit(f"{path}:{number}: expected a round number and decimal figures, got: {line.strip()}")
            side = fields[1]
            if round_index < 0:
                wait = max(numbers[6:8]) if len(numbers) > 6 else -1
                current["pings"].setdefault(side.replace("ping-", ""), []).append((numbers[0], wait))
            else:
                current["samples"].append((round_index, side, numbers))
    return measurements


def who_came_last(round_index, side):
    """Whose calls were timed last before this sample: rounds run S R | R S | S R ..."""
    first = "student" if round_index % 2 == 0 else "solution"
    if side != first:
        return first
    if round_index == 0:
        return "solution"  # the warm-up's last calls
    return "student" if round_index % 2 == 0 else "solution"


def summarize(path, index, measurement):
    samples = measurement["samples"]
    rounds = 1 + max((s[0] for s in samples), default=-1)
    print(f"{path}, measurement {index + 1}: {rounds} rounds")
    for side, pings in sorted(measurement["pings"].items()):
        kept = [ms for ms, wait in pings if wait <= DISTURBING_WAIT_US] or [ms for ms, _ in pings]
        print(f"  round trip to the {side}'s runner: median {statistics.median(kept):.4f} ms, "
              f"p90 {percentile(kept, 0.9):.4f} ms ({len(kept)} pings kept of {len(pings)})")
    by_side = {}
    for round_index, side, numbers in samples:
        by_side.setdefault(side, {})[round_index] = numbers
    for side, rows in sorted(by_side.items()):
        figures = list(rows.values())
        print(f"  {side:8}: window {statistics.median(f[0] for f in figures):.4f} ms as measured, "
              f"{statistics.median(f[1] for f in figures):.4f} ms scored, runner host "
              f"{statistics.median(f[2] for f in figures):.4f} ms")
    student, solution = by_side.get("student", {}), by_side.get("solution", {})
    def wait_us(numbers):
        return max(numbers[6:8]) if len(numbers) > 6 else -1

    for side, rows in sorted(by_side.items()):
        waits = [wait_us(n) for n in rows.values() if wait_us(n) >= 0]
        if waits:
            print(f"  {side:8}: CPU wait in the window: median {statistics.median(waits):.1f} us, "
                  f"max {max(waits):.1f} us; {sum(w > DISTURBING_WAIT_US for w in waits)} of {len(waits)} "
                  f"above {DISTURBING_WAIT_US} us")
    disturbed = {r for rows in by_side.values() for r, n in rows.items() if wait_us(n) > DISTURBING_WAIT_US}
    ratios = [student[r][1] / solution[r][1] for r in student
              if r in solution and solution[r][1] > 0 and r not in disturbed]
    if ratios:
        print(f"  ratio: median {statistics.median(ratios):.3f}, {min(ratios):.3f}-{max(ratios):.3f} "
              f"({len(ratios)} rounds kept, {len(disturbed)} disturbed)")
    checks = {}
    for round_index, side, numbers in samples:
        if len(numbers) < 6:
            continue
        checks.setdefault(f"before the {side}'s window, after the {who_came_last(round_index, side)}'s calls",
                          []).append(numbers[4])
        checks.setdefault(f"after the {side}'s calls", []).append(numbers[5])
    for where, values in sorted(checks.items()):
        middle = statistics.median(values)
        above = sum(v > middle + MARGIN_MS for v in values)
        print(f"  idle check {where}: median {middle * 1000:.1f} us, p90 {percentile(values, 0.9) * 1000:.1f} us, "
              f"max {max(values) * 1000:.1f} us; {above} of {len(values)} more than 50 us above the median")


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[-1].strip().replace("bench/", "usage: bench/"))
    for path in paths:
        try:
            measurements = read_measurements(path)
        except OSError as error:
            sys.exit(f"{path}: {error.strerror}")
        if not measurements:
            print(f"{path}: no measurement (no '# warm-up' line)")
        for index, measurement in enumerate(measurements):
            summarize(path, index, measurement)


if __name__ == "__main__":
    main(sys.argv[1:])
