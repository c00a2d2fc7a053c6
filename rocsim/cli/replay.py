"""``rocsim replay <overrides...> --condition LABEL --replication R [--attempt K]``: draw one
data set of a study again and analyse it as its run did, outside the runner, so that the
exception a run with ``runner.on_error=record`` recorded shows with its traceback.

The overrides are the run's (``failures.csv`` and the run's last lines print the whole
command); the condition is named by its label (the ``condition`` column of the tables).
"""

from __future__ import annotations

import argparse
import sys
import traceback

from rocsim.cli._common import EXIT_FAILURE, fail

PROG = "rocsim replay"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Draw one data set of a study again and analyse it (its exception, if "
        "it raises, with the traceback).",
    )
    p.add_argument("overrides", nargs="*", help="the run's overrides: study=NAME ...")
    p.add_argument("--condition", required=True, help="the condition's label")
    p.add_argument("--replication", type=int, required=True)
    p.add_argument("--attempt", type=int, default=0, help="its draw (0: the first)")
    return p


def main(args: list[str]) -> None:
    from rocsim.cli.study import compose_overrides
    from rocsim.sim.failures import find_condition, replay
    from rocsim.sim.pipeline import plain_config, study_conditions
    from rocsim.studies import get_kind

    options = parser().parse_args(args)
    if options.replication < 0 or options.attempt < 0:
        fail("--replication and --attempt are counts from 0", PROG)
    try:
        cfg = plain_config(compose_overrides(options.overrides, PROG))
        kind = get_kind(cfg["study"]["kind"])
        condition = find_condition(study_conditions(cfg), options.condition)
    except ValueError as err:
        fail(str(err), PROG)
    what = f"replication {options.replication} (attempt {options.attempt}) of {condition.label}"
    try:
        outcomes = replay(kind, condition, int(cfg["seed"]), options.replication, options.attempt)
    except Exception as err:
        traceback.print_exc()
        fail(f"{what} raised {type(err).__name__}: {err} (traceback above)", PROG, EXIT_FAILURE)
    print(f"{what} did not fail; its outcomes:")
    for name, values in outcomes.items():
        print(f"  {name}: {values}")
    sys.stdout.flush()
