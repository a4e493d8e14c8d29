"""``escpush demo``: the main jobs, end to end, printed as a user would run them."""

from __future__ import annotations

import json

from . import Filter, FilterError, field


def filter_demo() -> None:
    """Build a filter, validate it against http_requests, print it; then show a broken one."""
    print("== Log-push filter ==")
    f = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
        "ClientCountry"
    ).is_in(["cn", "ru"])
    print(f"built:      {f!r}")
    f.validate("http_requests")
    print(f"valid for http_requests: {f.operator_count} operators, {f.byte_size} of 1000 bytes")
    print(f"job field:  {json.dumps(f.to_json())}")
    print(
        "matches a 503 from a.example.com:",
        f.matches({"ClientRequestHost": "a.example.com", "EdgeResponseStatus": 503}),
    )

    broken = (
        '{"where": {"and": [{"key": "ClientRequestHots", "operator": "eq", "value": "example.com"},'
        ' {"key": "EdgeResponseStatus", "operator": "gte", "value": "500"},'
        ' {"key": "ClientCountry", "operator": "in", "value": "cn"}]}}'
    )
    print(f"\nparsing a broken filter:\n  {broken}")
    try:
        Filter.parse(broken)
    except FilterError as err:
        for problem in err.errors():
            print(f"  {problem['path']}: {problem['message']} [{problem['code']}]")
    fixed = Filter.parse(broken.replace('"gte"', '"geq"').replace('"value": "cn"', '"value": ["cn"]'))
    print("after fixing the operator and the set, validating against http_requests:")
    for problem in fixed.problems("http_requests"):
        print(f"  {problem['path']}: {problem['message']} [{problem['code']}]")


def run() -> int:
    filter_demo()
    return 0
