"""The bounds of every evaluation: sizes, depth, budget."""

MAX_STR_CHARS = 1_000_000  # longest string built during evaluation

MAX_ITEMS = 100_000  # longest list/dict/set built during evaluation

MAX_RESULT_ITEMS = 1_000_000  # items in a result counted through shared references

MAX_RESULT_CHARS = 10_000_000  # characters in a result counted through shared references

MAX_INT_BITS = 4_096  # larger integers are refused (and so is the work to build them)

MAX_FORMAT_WIDTH = 1_000  # widths and precisions in format specs

MAX_CALL_DEPTH = 8  # nested calls of module functions

TOTAL_BUDGET_FACTOR = 50  # default total_step_budget = step_budget * this

# Walking container contents in C (comparisons, copies, membership) is far cheaper than
# evaluating a node: this many visited items cost one step.
ITEMS_PER_STEP = 32

# Text produced in one go (str() of a container, a % format) may briefly exceed MAX_STR_CHARS
# before the result is checked; its computed upper bound may not exceed this.
_TRANSIENT_TEXT_CAP = 10 * MAX_STR_CHARS

BUDGET_EXCEEDED = "evaluation budget exceeded"

