#!/usr/bin/env python3
"""How long grading each lab's reference solution takes, against its bound.

Reads the JSON reports of `labgrade grade <lab> --submission solutions/<lab> --json FILE` run one
at a time on an otherwise idle GPU machine (bench/verify_on_gpu.sh's `grades` step) and prints,
per lab, the test and build + test seconds and whether they are within bounds. Exit status 1 when
any lab is over.

The bounds: issue 17's targets (lab 01: tests under 2 s, build + tests under 4 s; every lab under
8 s), and for the other labs about 1.7x what was measured on the H100 on 2026-11-23 with every
integrity check in place (lab 01: tests 0.75 s, build + tests 2.6 s; slowest, lab 03: 1.7 s and
3.7 s). Making or checking a large case on the host again costs seconds and breaks them. Time
spent waiting for the GPU lock is not test time.

    bench/grade_time_bounds.py grade_01_vector_add.json ...
"""
import json
import os
import sys

DEFAULT = (3.0, 6.0)  # (tests, build + tests) in seconds
BOUNDS = {
    "01_vector_add": (2.0, 4.0),
    # The reference graded as a submission compiles a kernel per filter radius (40
    # instantiations): 8.0 s of build on the H100 (tests 1.7 s), over issue 17's 8 s in all.
    # Since the judge split (a judge and two runners started, every timed sample checked) its
    # three timed cases take 1.5 s: tests 3.19 s, build 3.13 s (H100, 2026-12-07).
    "08_convolution": (4.0, 12.0),
    # Pinned arrays of up to 256 MiB each way made and filled on the host for 17 tests, and two
    # timed cases that each measure three stages alone first: 4.8 s of tests, 6.5 s with the build;
    # since the judge split 5.00-5.41 s of tests, 6.3-6.9 s in all (H100, 2026-12-07): the tests'
    # bound leaves room for that, the whole grade's stays issue 17's 8 s.
    "09_streams": (6.0, 8.0),
    # Three timed cases of 2^26 keys (and values), each remeasured near a threshold, and 21 tests
    # of which four make and check 2^22-2^26 keys on the GPU: 3.1 s of tests on the H200.
    "11_sort": (4.0, 6.0),
}


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    over = 0
    for path in paths:
        try:
            with open(path) as file:
                report = json.load(file)
            lab = report["lab"]
            timing = report["timing"]
            tests = float(timing["test_seconds"])
            both = tests + float(timing["build_seconds"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"{path}: not a labgrade JSON report with lab and timing.test_seconds/build_seconds ({error})")
            over += 1
            continue
        bound_tests, bound_both = BOUNDS.get(lab, DEFAULT)
        ok = tests <= bound_tests and both <= bound_both
        over += 0 if ok else 1
        print(f"{lab:16} tests {tests:5.2f} s (bound {bound_tests:4.1f}), build + tests {both:5.2f} s "
              f"(bound {bound_both:4.1f}): {'ok' if ok else 'OVER'}  [{os.path.basename(path)}]")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
