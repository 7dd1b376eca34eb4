"""Web Search Tool -- search the web through a Tavily-compatible search API.

Needs ``WEB_SEARCH_API_KEY``; without it the tool is left out of the model's tool list.
``WEB_SEARCH_ENDPOINT`` (optional) points at another service that speaks the same protocol:
``POST <endpoint>`` with ``Authorization: Bearer <key>`` and a JSON body
``{"query": ..., "max_results": ...}``, answering ``{"results": [{"title", "url", "content"}]}``
(``snippet`` is accepted in place of ``content``). Network failures, HTTP errors and malformed
answers are results of the form ``{"error": ...}``.
"""

import json
import logging
import os
import urllib.error
import urllib.request
from typing import Any

from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

DEFAULT_URL = "https://api.tavily.com/search"
DEFAULT_MAX_RESULTS = 5
MAX_RESULTS_LIMIT = 20
REQUEST_TIMEOUT_SECONDS = 15
# A search answer is a few kilobytes; a bigger one is not worth holding in memory.
MAX_RESPONSE_BYTES = 2_000_000
MAX_SNIPPET_CHARS = 1000


# --- Availability check ---


def check_web_search_requirements() -> bool:
    """Available when the search API key is configured."""
    return bool(os.getenv("WEB_SEARCH_API_KEY"))


# --- Helpers ---


def _search_request(endpoint: str, api_key: str, query: str,
                    max_results: int) -> urllib.request.Request:
    body = json.dumps({"query": query, "max_results": max_results}).encode("utf-8")
    return urllib.request.Request(
        endpoint,
        data=body,
        method="POST",
        headers={
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "hermes-web-search/1",
        },
    )


def _results(payload: object, max_results: int) -> list[dict[str, str]] | None:
    """Title, url and snippet of each hit, or None when ``payload`` is not a search answer."""
    hits = payload.get("results") if isinstance(payload, dict) else None
    if not isinstance(hits, list):
        return None
    return [
        {
            "title": str(hit.get("title") or ""),
            "url": str(hit.get("url") or ""),
            "snippet": str(hit.get("content") or hit.get("snippet") or "")[:MAX_SNIPPET_CHARS],
        }
        for hit in hits[:max_results]
        if isinstance(hit, dict)
    ]


def _is_result_count(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 1 <= value <= MAX_RESULTS_LIMIT
    )


# --- Handler ---


def _handle_web_search(args: dict[str, Any], **kwargs: Any) -> str:
    query = args.get("query")
    max_results = args.get("max_results", DEFAULT_MAX_RESULTS)
    if not isinstance(query, str) or not query.strip():
        return tool_error("query must be a non-empty string")
    if not _is_result_count(max_results):
        return tool_error(f"max_results must be an integer between 1 and {MAX_RESULTS_LIMIT}")
    api_key = os.getenv("WEB_SEARCH_API_KEY")
    if not api_key:
        return tool_error("web search is not configured: WEB_SEARCH_API_KEY is not set")
    endpoint = os.getenv("WEB_SEARCH_ENDPOINT", DEFAULT_URL)
    if not endpoint.startswith(("http://", "https://")):
        return tool_error(f"WEB_SEARCH_ENDPOINT must be an http(s) URL, got {endpoint!r}")
    request = _search_request(endpoint, api_key, query, max_results)
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
            raw = response.read(MAX_RESPONSE_BYTES)
    except urllib.error.HTTPError as exc:  # before URLError: it is a subclass
        return tool_error(f"web search service at {endpoint} answered HTTP {exc.code} {exc.reason}")
    except urllib.error.URLError as exc:
        return tool_error(f"web search service unreachable at {endpoint}: {exc.reason}")
    except Exception as exc:  # timeouts, resets mid-answer: still a result for the model
        return tool_error(f"web search service unreachable at {endpoint}: {exc}")
    try:
        results = _results(json.loads(raw), max_results)
    except ValueError:
        results = None
    if results is None:
        return tool_error(f"web search service at {endpoint} did not answer with search results")
    return json.dumps({"query": query, "results": results}, ensure_ascii=False)


# --- Schema ---

WEB_SEARCH_SCHEMA = {
    "name": "web_search",
    "description": (
        "Search the web and return the top results, each with its title, URL and a text "
        "snippet. Use it for current information or facts not in the workspace."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What to search for, as you would type it into a search engine.",
            },
            "max_results": {
                "type": "integer",
                "description": "How many results to return.",
                "minimum": 1,
                "maximum": MAX_RESULTS_LIMIT,
                "default": DEFAULT_MAX_RESULTS,
            },
        },
        "required": ["query"],
    },
}

# --- Registration ---

registry.register(
    name="web_search",
    toolset="web",
    schema=WEB_SEARCH_SCHEMA,
    handler=_handle_web_search,
    check_fn=check_web_search_requirements,
    requires_env=["WEB_SEARCH_API_KEY"],
    emoji="🌐",
    max_result_size_chars=30_000,
)
