"""Clarify Tool -- ask the user 1 to 5 independent questions in one go and collect the answers.

The result is ``{"responses": [...], "outcome": ...}``. ``responses`` follows the order of the
questions; each item holds ``question``, ``choices_offered``, ``status`` (``answered``,
``skipped`` or ``unanswered``) and ``user_response`` (None unless answered; a list of strings
for a multi-select question). ``outcome`` is ``submitted``, ``cancelled``, ``timed_out`` or
``undelivered``; the last three come with a ``notice`` saying why the asking stopped.

The chat surface is supplied by the runtime as the ``clarify_callback`` handler kwarg::

    clarify_callback(question: str, choices: list[str], multi_select: bool)
        -> str | list[str] | None

It is called once per question, in order. It returns the answer, or None (or an empty answer)
when the user skips that question. It raises ``ClarifyCancelled`` when the user cancels the
whole prompt, ``TimeoutError`` when the user stopped responding, and anything else when the
prompt could not be delivered. Answers given before the asking stopped are kept; the rest are
``unanswered``, so a prompt nobody could see is never reported as a user who did not answer.
Without a callback (no chat surface) nothing is asked: outcome ``undelivered``.
"""

import json
import logging
from collections.abc import Callable
from typing import Any

from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

MIN_QUESTIONS = 1
MAX_QUESTIONS = 5
NO_SURFACE_NOTICE = "[clarify prompt could not be delivered: no chat surface]"
UNDELIVERED_NOTICE = "[clarify prompt could not be delivered]"
TIMED_OUT_NOTICE = "[user did not respond in time]"
CANCELLED_NOTICE = "[user cancelled the prompt]"


# question, choices, multi_select -> the answer (None or empty when skipped)
ClarifyCallback = Callable[[str, list[str], bool], object]


class ClarifyCancelled(Exception):
    """Raised by a ``clarify_callback`` when the user cancels the whole prompt."""


# --- Availability check ---


def check_clarify_requirements() -> bool:
    """Always available: without a chat surface the result says the prompt was undelivered."""
    return True


# --- Helpers ---


def _question_problem(position: int, item: object) -> str | None:
    """Why questions[position] is malformed, or None."""
    label = f"questions[{position}]"
    if not isinstance(item, dict):
        return f"{label} must be an object"
    if not isinstance(item.get("question"), str) or not item["question"].strip():
        return f"{label}.question must be a non-empty string"
    choices = item.get("choices", [])
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        return f"{label}.choices must be an array of strings"
    if not isinstance(item.get("multi_select", False), bool):
        return f"{label}.multi_select must be true or false"
    return None


def _questions_problem(questions: object) -> str | None:
    """Why the questions argument is malformed, or None."""
    if not isinstance(questions, list) or not MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS:
        return f"questions must be an array of {MIN_QUESTIONS} to {MAX_QUESTIONS} items"
    for position, item in enumerate(questions):
        problem = _question_problem(position, item)
        if problem:
            return problem
    return None


def _normalised_questions(questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "question": item["question"],
            "choices": list(item.get("choices", [])),
            "multi_select": item.get("multi_select", False),
        }
        for item in questions
    ]


def _unanswered(question: dict[str, Any]) -> dict[str, Any]:
    return {
        "question": question["question"],
        "choices_offered": question["choices"],
        "status": "unanswered",
        "user_response": None,
    }


def _response(question: dict[str, Any], answer: object) -> dict[str, Any]:
    """The response item for what the callback returned."""
    if question["multi_select"] and isinstance(answer, str):
        answer = [answer]
    if answer is None or answer == "" or answer == []:
        return {**_unanswered(question), "status": "skipped"}
    return {**_unanswered(question), "status": "answered", "user_response": answer}


def _ask_all(questions: list[dict[str, Any]], clarify_callback: ClarifyCallback,
             ) -> tuple[list[dict[str, Any]], str, str | None]:
    """Ask each question in turn; the responses, the outcome and a notice when cut short."""
    responses = [_unanswered(question) for question in questions]
    for position, question in enumerate(questions):
        try:
            answer = clarify_callback(
                question["question"], question["choices"], question["multi_select"]
            )
        except ClarifyCancelled:
            return responses, "cancelled", CANCELLED_NOTICE
        except TimeoutError:
            return responses, "timed_out", TIMED_OUT_NOTICE
        except Exception:  # the surface failed; that is not the user's silence
            logger.warning("clarify prompt could not be delivered", exc_info=True)
            return responses, "undelivered", UNDELIVERED_NOTICE
        responses[position] = _response(question, answer)
    return responses, "submitted", None


# --- Handler ---


def _handle_clarify(args: dict[str, Any], **kwargs: Any) -> str:
    # As the model sent it: _questions_problem checks it before it is used.
    questions: Any = args.get("questions")
    clarify_callback = kwargs.get("clarify_callback")
    problem = _questions_problem(questions)
    if problem:
        return tool_error(problem)
    normalised = _normalised_questions(questions)
    if clarify_callback is None:
        responses = [_unanswered(question) for question in normalised]
        return json.dumps(
            {"responses": responses, "outcome": "undelivered", "notice": NO_SURFACE_NOTICE},
            ensure_ascii=False,
        )
    responses, outcome, notice = _ask_all(normalised, clarify_callback)
    result = {"responses": responses, "outcome": outcome}
    if notice:
        result["notice"] = notice
    return json.dumps(result, ensure_ascii=False)


# --- Schema ---

CLARIFY_SCHEMA = {
    "name": "clarify",
    "description": (
        "Ask the user 1 to 5 independent questions at once and wait for the answers, instead "
        "of guessing when a request is ambiguous. Each question may offer choices and may "
        "allow several of them. Returns one response per question, in order, with its status "
        "(answered, skipped or unanswered), and an outcome: submitted, cancelled, timed_out "
        "or undelivered (no one could be asked)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "description": "The questions to ask together, 1 to 5 of them.",
                "minItems": MIN_QUESTIONS,
                "maxItems": MAX_QUESTIONS,
                "items": {
                    "type": "object",
                    "description": "One question.",
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The question, as the user will read it.",
                        },
                        "choices": {
                            "type": "array",
                            "description": "Suggested answers; leave empty for a free-text answer.",
                            "items": {"type": "string", "description": "One suggested answer."},
                        },
                        "multi_select": {
                            "type": "boolean",
                            "description": "Whether the user may pick several choices.",
                            "default": False,
                        },
                    },
                    "required": ["question"],
                },
            },
        },
        "required": ["questions"],
    },
}

# --- Registration ---

registry.register(
    name="clarify",
    toolset="clarify",
    schema=CLARIFY_SCHEMA,
    handler=_handle_clarify,
    check_fn=check_clarify_requirements,
    emoji="❓",
)
