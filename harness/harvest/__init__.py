"""`iree-regress harvest`: an upstream report, as pasted, into a case: thread.py reads what
it says, program.py turns its program into the case's files, plan.py decides the case,
choice.py picks the reproducing one of several blocks (commands/harvest.py makes the case
and scans the releases)."""

from .choice import choose_reproducing
from .plan import CasePlan, plan_case
from .program import Stated, run_inputs, stated_reference, stated_results, torch_model, torch_program
from .thread import (HarvestError, Thread, blocks_to_try, bug_outcome, check_issue, choose_program,
                     fails_at_run_time, fetch_thread, pass_args, quoted_match, read_thread, slug_of,
                     target_and_flags)
