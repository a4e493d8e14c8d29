"""The filter model from Python: building, parsing, printing, validating, evaluating."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

import escpush
from escpush import EscpushError, Filter, FilterError, InvalidInput, field

SAMPLES = sorted((Path(__file__).parents[1] / "data" / "filters").glob("*.json"))


def problems_of(exc: pytest.ExceptionInfo[FilterError]) -> list[tuple[str, str]]:
    return [(p["path"], p["code"]) for p in exc.value.errors()]


# -- building ------------------------------------------------------------------------


def test_builders_and_operators_make_the_documented_json() -> None:
    f = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
        "ClientCountry"
    ).is_in(["cn", "ru"])
    assert f.to_json() == (
        '{"where":{"or":[{"and":['
        '{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"},'
        '{"key":"EdgeResponseStatus","operator":"geq","value":"500"}]},'
        '{"key":"ClientCountry","operator":"in","value":["cn","ru"]}]}}'
    )
    assert f.operator_count == 3
    assert f.byte_size == len(f.to_json().encode())
    assert f.fields == ["ClientRequestHost", "EdgeResponseStatus", "ClientCountry"]


@pytest.mark.parametrize(
    ("made", "operator", "value"),
    [
        (field("F").eq("x"), "eq", "x"),
        (field("F") == "x", "eq", "x"),
        (field("F").eq(200), "eq", "200"),
        (field("F").eq(True), "eq", True),
        (field("F").ne("x"), "!eq", "x"),
        (field("F") != "x", "!eq", "x"),
        (field("F").lt(5), "lt", "5"),
        (field("F") < 5, "lt", "5"),
        (field("F").le("5"), "leq", "5"),
        (field("F") <= 5, "leq", "5"),
        (field("F").gt(-5), "gt", "-5"),
        (field("F") > 5, "gt", "5"),
        (field("F").ge(5), "geq", "5"),
        (field("F") >= 5, "geq", "5"),
        (field("F").starts_with("/a"), "startsWith", "/a"),
        (field("F").ends_with(".php"), "endsWith", ".php"),
        (field("F").not_starts_with("/a"), "!startsWith", "/a"),
        (field("F").not_ends_with(".php"), "!endsWith", ".php"),
        (field("F").contains("waf"), "contains", "waf"),
        (field("F").not_contains("waf"), "!contains", "waf"),
        (field("F").is_in([200, "201", True]), "in", [200, "201", True]),
        (field("F").not_in(("a", "b")), "!in", ["a", "b"]),
        (field("F").is_in({"b", "a", "c"}), "in", ["a", "b", "c"]),
    ],
)
def test_every_builder(made: Filter, operator: str, value: object) -> None:
    assert made.to_dict() == {"where": {"key": "F", "operator": operator, "value": value}}


@pytest.mark.parametrize(
    ("build", "code", "message"),
    [
        (lambda: field(""), "empty_key", "`key` is empty; name a log field"),
        (lambda: field("F").is_in([]), "empty_set", "`in` needs at least one value"),
        (lambda: field("F").not_in("abc"), "invalid_value", '`!in` takes an array of values, like ["abc"]'),
        (lambda: field("F").lt("abc"), "not_an_integer", '`lt` compares numbers; "abc" is not an integer'),
        (lambda: field("F").ge(True), "not_an_integer", "`geq` compares numbers; true is not an integer"),
        (lambda: field("F").lt("0500"), "not_an_integer", '"0500" is not an integer'),
        (lambda: field("F").eq(1.5), "invalid_value", "1.5 is not an integer; filter values are strings"),
        (lambda: field("F").eq(None), "invalid_value", "a filter value is a string, an integer or a boolean, not null"),
        (lambda: field("F").eq(2**70), "integer_out_of_range", "1180591620717411303424 is outside the 64-bit"),
        (lambda: field("F").eq(float("inf")), "invalid_value", "inf is not an integer"),
        (lambda: field("F").eq([1]), "invalid_value", "`eq` takes one value, not an array"),
        (lambda: field("F").starts_with(5), "invalid_value", "`startsWith` takes a str, not int"),
    ],
)
def test_builders_refuse_bad_values_at_once(build, code: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FilterError) as exc:
        build()
    [problem] = exc.value.errors()
    assert problem["code"] == code
    assert message in problem["message"]


@pytest.mark.parametrize(
    ("build", "operator", "value"),
    [
        (lambda: field("F").is_in([]), "in", "[]"),
        (lambda: field("F").not_in("abc"), "!in", '"abc"'),
        (lambda: field("F").lt("abc"), "lt", '"abc"'),
        (lambda: field("F").ge(True), "geq", "true"),
        (lambda: field("F").eq(1.5), "eq", "1.5"),
        (lambda: field("F").eq(None), "eq", "null"),
        (lambda: field("F").eq(2**70), "eq", str(2**70)),
        (lambda: field("F").is_in([1, {}]), "in", "[1, {}]"),
        (lambda: field("F").contains({"a": 1}), "contains", '{"a": 1}'),
    ],
)
def test_builders_report_what_parse_reports(build, operator: str, value: str) -> None:  # type: ignore[no-untyped-def]
    """One rule, one wording: the builders' problems are the parser's, paths aside."""
    with pytest.raises(FilterError) as built:
        build()
    with pytest.raises(FilterError) as parsed:
        Filter.parse(f'{{"where": {{"key": "F", "operator": "{operator}", "value": {value}}}}}')
    strip = [(p["path"].removeprefix("where."), p["code"], p["message"]) for p in parsed.value.errors()]
    assert [(p["path"], p["code"], p["message"]) for p in built.value.errors()] == strip


def test_and_or_flatten_and_nest_like_the_spec_shapes() -> None:
    x, y, z = field("X") == "x", field("Y") == "y", field("Z") == "z"
    assert (x & y & z).to_dict() == {
        "where": {"and": [x.to_dict()["where"], y.to_dict()["where"], z.to_dict()["where"]]}
    }
    assert (x | y | z).to_dict()["where"]["or"][2] == z.to_dict()["where"]
    assert list((x & (y | z)).to_dict()["where"]["and"][1]) == ["or"]
    assert list(((x & y) | z).to_dict()["where"]["or"][0]) == ["and"]


def test_invert_uses_negation_partners_and_de_morgan() -> None:
    f = (field("A") < 5) & ((field("B") == "x") | field("C").is_in(["y"]))
    assert (~f).to_json() == (
        '{"where":{"or":[{"key":"A","operator":"geq","value":"5"},'
        '{"and":[{"key":"B","operator":"!eq","value":"x"},{"key":"C","operator":"!in","value":["y"]}]}]}}'
    )
    assert ~~f == f
    pairs = {"eq": "!eq", "lt": "geq", "leq": "gt", "startsWith": "!startsWith", "endsWith": "!endsWith"}
    pairs |= {"contains": "!contains", "in": "!in"}
    for op, partner in pairs.items():
        value = ["1"] if op == "in" else "1"
        f = Filter.from_dict({"where": {"key": "F", "operator": op, "value": value}})
        assert (~f).to_dict()["where"]["operator"] == partner
        assert (~~f).to_dict()["where"]["operator"] == op


def test_operators_with_other_types_are_not_implemented() -> None:
    f = field("A") == "x"
    with pytest.raises(TypeError):
        f & "x"  # type: ignore[operator]
    with pytest.raises(TypeError):
        f | 1  # type: ignore[operator]
    assert (f == "x") is False
    assert f != 1


# -- identity: equality, hashing, repr, pickling -----------------------------------------


def test_equality_hash_repr_and_pickle() -> None:
    a = field("ClientCountry").is_in(["cn", "ru"])
    b = Filter('{"where":{"key":"ClientCountry","operator":"in","value":["cn","ru"]}}')
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != field("ClientCountry").is_in(["ru", "cn"])
    assert repr(a) == """Filter('{"where":{"key":"ClientCountry","operator":"in","value":["cn","ru"]}}')"""
    assert eval(repr(a), {"Filter": Filter}) == a
    assert str(a) == a.to_text() == 'ClientCountry in ["cn", "ru"]'
    assert pickle.loads(pickle.dumps(a)) == a
    assert repr(field("X")) == "field('X')" or repr(field("X")) == 'field("X")'
    with pytest.raises(TypeError):
        hash(field("X"))


def test_repr_of_awkward_text_is_still_a_constructor() -> None:
    f = field("K").eq('it\'s "quoted" \\ and \n new é')
    assert eval(repr(f), {"Filter": Filter}) == f


# -- parsing --------------------------------------------------------------------------


def test_parse_accepts_text_bytes_dicts_and_the_quoted_form_of_a_job() -> None:
    text = '{"where":{"key":"A","operator":"eq","value":"x"}}'
    f = Filter.parse(text)
    assert Filter.parse(text.encode()) == f
    assert Filter.parse(json.dumps(text)) == f, "the escaped string copied out of a job payload"
    assert Filter.from_dict(json.loads(text)) == f
    assert Filter.from_dict(text) == f
    pretty = json.dumps(json.loads(text), indent=2)
    assert Filter.parse(pretty).to_json() == text


PARSE_CASES = [
    ("{}", "", "missing_where", "the filter has no `where` member"),
    ('{"wehre": {}}', "wehre", "unknown_member", "did you mean `where`?"),
    ("[]", "", "not_an_object", "a filter is a JSON object"),
    ("{", "", "invalid_json", "the filter is not JSON"),
    ('"{nope"', "", "invalid_json", "the quoted filter is not JSON"),
    ('{"where": 1}', "where", "not_an_object", "an expression is an object"),
    ('{"where": {}}', "where", "empty_expression", "an expression needs `key`, `operator` and `value`"),
    ('{"where": {"and": []}}', "where.and", "empty_group", "a group needs at least one expression"),
    ('{"where": {"or": {}}}', "where.or", "invalid_type", "a group holds an array of expressions"),
    ('{"where": {"and": [], "or": []}}', "where", "and_and_or", "nest one inside the other"),
    (
        '{"where": {"key": "A", "operator": "eq", "value": "x", "and": []}}',
        "where",
        "condition_and_group",
        "both a condition",
    ),
    ('{"where": {"key": "A", "operator": "eq"}}', "where", "missing_member", "the condition has no `value`"),
    ('{"where": {"key": "A", "value": "x"}}', "where", "missing_member", "the condition has no `operator`"),
    ('{"where": {"operator": "eq", "value": "x"}}', "where", "missing_member", "the condition has no `key`"),
    (
        '{"where": {"key": "A", "operator": "eq", "value": "x", "vaule": 1}}',
        "where.vaule",
        "unknown_member",
        "did you mean `value`?",
    ),
    (
        '{"where": {"key": "A", "key": "B", "operator": "eq", "value": "x"}}',
        "where.key",
        "duplicate_member",
        "more than once",
    ),
    ('{"where": {"key": 1, "operator": "eq", "value": "x"}}', "where.key", "invalid_type", "not a number"),
    ('{"where": {"key": "", "operator": "eq", "value": "x"}}', "where.key", "empty_key", "`key` is empty"),
    ('{"where": {"key": "A", "operator": 1, "value": "x"}}', "where.operator", "invalid_type", '"eq"'),
    (
        '{"where": {"key": "A", "operator": "neq", "value": "x"}}',
        "where.operator",
        "unknown_operator",
        "did you mean `!eq`?",
    ),
    (
        '{"where": {"key": "A", "operator": "gte", "value": "1"}}',
        "where.operator",
        "unknown_operator",
        "did you mean `geq`?",
    ),
    (
        '{"where": {"key": "A", "operator": "lte", "value": "1"}}',
        "where.operator",
        "unknown_operator",
        "did you mean `leq`?",
    ),
    (
        '{"where": {"key": "A", "operator": "startswith", "value": "x"}}',
        "where.operator",
        "unknown_operator",
        "`startsWith`",
    ),
    (
        '{"where": {"key": "A", "operator": "between", "value": "x"}}',
        "where.operator",
        "unknown_operator",
        "the operators are eq, !eq",
    ),
    (
        '{"where": {"key": "A", "operator": "in", "value": "x"}}',
        "where.value",
        "invalid_value",
        '`in` takes an array of values, like ["x"]',
    ),
    ('{"where": {"key": "A", "operator": "!in", "value": []}}', "where.value", "empty_set", "at least one value"),
    (
        '{"where": {"key": "A", "operator": "in", "value": [{"a": 1}]}}',
        "where.value[0]",
        "invalid_value",
        "not an object",
    ),
    ('{"where": {"key": "A", "operator": "eq", "value": ["x"]}}', "where.value", "invalid_value", "use `in`"),
    ('{"where": {"key": "A", "operator": "eq", "value": null}}', "where.value", "invalid_value", "not null"),
    (
        '{"where": {"key": "A", "operator": "eq", "value": 1.5}}',
        "where.value",
        "invalid_value",
        "1.5 is not an integer",
    ),
    (
        '{"where": {"key": "A", "operator": "lt", "value": "abc"}}',
        "where.value",
        "not_an_integer",
        '`lt` compares numbers; "abc"',
    ),
    (
        '{"where": {"key": "A", "operator": "geq", "value": true}}',
        "where.value",
        "not_an_integer",
        "true is not an integer",
    ),
    (
        '{"where": {"key": "A", "operator": "eq", "value": 99999999999999999999}}',
        "where.value",
        "integer_out_of_range",
        "64-bit",
    ),
]


@pytest.mark.parametrize(("text", "path", "code", "message"), PARSE_CASES)
def test_every_parse_rule_names_path_code_and_fix(text: str, path: str, code: str, message: str) -> None:
    with pytest.raises(FilterError) as exc:
        Filter.parse(text)
    found = [p for p in exc.value.errors() if p["code"] == code]
    assert found, exc.value.errors()
    assert found[0]["path"] == path
    assert message in found[0]["message"]
    assert message in str(exc.value)


def test_every_problem_is_collected_in_text_order() -> None:
    text = """{"where": {"and": [
        {"key": "A", "operator": "neq", "value": "x"},
        {"or": [{"key": "B", "operator": "in", "value": []}, {"key": "C", "operator": "lt", "value": "x"}]},
        {"and": []}
    ]}}"""
    with pytest.raises(FilterError) as exc:
        Filter.parse(text)
    assert problems_of(exc) == [
        ("where.and[0].operator", "unknown_operator"),
        ("where.and[1].or[0].value", "empty_set"),
        ("where.and[1].or[1].value", "not_an_integer"),
        ("where.and[2].and", "empty_group"),
    ]
    assert str(exc.value).startswith("invalid filter: 4 problems\n  - where.and[0].operator: unknown operator")


def test_from_dict_names_unsupported_python_values() -> None:
    with pytest.raises(FilterError, match=r"`where.value` is a set"):
        Filter.from_dict({"where": {"key": "A", "operator": "in", "value": {1, 2}}})
    with pytest.raises(FilterError, match="not a string"):
        Filter.from_dict({"where": {1: "x"}})
    with pytest.raises(TypeError):
        Filter.parse({"where": {}})  # type: ignore[arg-type]


def test_filter_error_is_a_value_error_and_survives_pickling() -> None:
    with pytest.raises(FilterError) as exc:
        Filter.parse("{}")
    err = exc.value
    assert isinstance(err, ValueError) and isinstance(err, EscpushError)
    again = pickle.loads(pickle.dumps(err))
    assert again.errors() == err.errors() and str(again) == str(err)
    assert err.errors() == [
        {
            "path": "",
            "code": "missing_where",
            "message": 'the filter has no `where` member; write it as {"where": {...}}',
        }
    ]


# -- validation ------------------------------------------------------------------------


DATASET_CASES = [
    (
        field("ClientRequestHots") == "x",
        "where.key",
        "unknown_field",
        "`ClientRequestHots` is not a field of http_requests; did you mean `ClientRequestHost`?",
    ),
    (field("clientrequesthost") == "x", "where.key", "unknown_field", "did you mean `ClientRequestHost`?"),
    (
        field("EdgeResponseStatus").starts_with("5"),
        "where.operator",
        "operator_not_supported",
        "`startsWith` does not apply to `EdgeResponseStatus`, a field of type int; "
        "it takes eq, !eq, lt, leq, gt, geq, in, !in",
    ),
    (field("ClientRequestHost") > 5, "where.operator", "operator_not_supported", "a field of type string"),
    (field("WorkerSubrequest").contains("x"), "where.operator", "operator_not_supported", "it takes eq, !eq"),
    (
        field("SecuritySources") == "waf",
        "where.operator",
        "operator_not_supported",
        "it takes contains, !contains, in, !in",
    ),
    (
        field("MatchedRules") == "x",
        "where.key",
        "field_not_filterable",
        "fields of type array[object] cannot be filtered",
    ),
    (field("AISecurityCustomTopicCategories") == "x", "where.key", "field_not_filterable", "fields of type object"),
    (
        field("EdgeResponseStatus") == "abc",
        "where.value",
        "value_type_mismatch",
        'so "abc" never matches; write an integer',
    ),
    (field("EdgeResponseStatus").is_in([200, "x"]), "where.value[1]", "value_type_mismatch", "write an integer"),
    (field("WorkerSubrequest") == "yes", "where.value", "value_type_mismatch", "write true or false"),
]


@pytest.mark.parametrize(("f", "path", "code", "message"), DATASET_CASES)
def test_every_dataset_rule(f: Filter, path: str, code: str, message: str) -> None:
    assert f.problems() == []
    with pytest.raises(FilterError) as exc:
        f.validate("http_requests")
    [problem] = exc.value.errors()
    assert (problem["path"], problem["code"]) == (path, code)
    assert message in problem["message"]
    assert f.problems("http_requests") == exc.value.errors()


def test_firewall_events_fields_that_cannot_be_filtered() -> None:
    for name in ["Action", "Description", "Kind", "MatchIndex", "Metadata", "OriginatorRayID", "RuleID", "Source"]:
        for scope in ("zone", "account"):
            [problem] = (field(name) == "x").problems("firewall_events", scope=scope)
            assert problem["code"] == "field_not_filterable"
            assert (
                "firewall_events does not support filtering on it" in problem["message"]
                or "type object" in problem["message"]
            )
    assert (field("ClientIP") == "1.2.3.4").problems("firewall_events") == []


def test_values_that_fit_the_type_pass() -> None:
    ok = [
        field("EdgeResponseStatus") == "200",
        field("EdgeResponseStatus") == 200,
        field("EdgeResponseStatus").is_in(["200", 201]),
        field("WorkerSubrequest") == "true",
        field("WorkerSubrequest") == False,  # noqa: E712
        field("EdgeStartTimestamp") >= 0,
        field("EdgeStartTimestamp").starts_with("2024-"),
        field("SecuritySources").contains("waf"),
        field("EdgeResponseCompressionRatio") > 1,
    ]
    for f in ok:
        assert f.problems("http_requests") == [], f


def test_limits_default_to_the_api_and_are_configurable() -> None:
    many = field("ClientIP").is_in(["1"])
    for i in range(30):
        many = many | (field("ClientIP") == f"10.0.0.{i}")
    assert many.operator_count == 31
    with pytest.raises(FilterError) as exc:
        many.validate()
    assert problems_of(exc) == [("", "too_many_operators"), ("", "too_large")]
    assert "the filter has 31 comparison operators; the limit is 30" in str(exc.value)
    assert f"the filter takes {many.byte_size} bytes as compact JSON; the limit is 1000" in str(exc.value)
    many.validate(max_operators=31, max_bytes=2000)
    size = len('{"where":{"key":"A","operator":"eq","value":""}}')
    assert (field("A") == "x" * (1000 - size)).problems() == []
    assert [p["code"] for p in (field("A") == "x" * (1001 - size)).problems()] == ["too_large"]
    assert (field("A") == "é" * 10).byte_size == size + 20, "bytes are UTF-8 bytes"


def test_unknown_dataset_and_scope_are_invalid_input() -> None:
    with pytest.raises(InvalidInput, match=r"unknown dataset `http_request`; did you mean `http_requests`\?"):
        (field("A") == "x").validate("http_request")
    with pytest.raises(InvalidInput, match="`gateway_dns` is an account dataset: use it on an account, not on a zone"):
        (field("A") == "x").validate("gateway_dns", scope="zone")
    with pytest.raises(InvalidInput, match='use "zone" or "account"'):
        (field("A") == "x").validate("http_requests", scope="org")
    assert isinstance(InvalidInput("x"), ValueError)


def test_datasets_are_embedded_for_both_scopes() -> None:
    names = escpush.datasets()
    assert "http_requests" in names and "gateway_dns" in names and len(names) == len(set(names))
    assert set(names) == set(escpush.datasets("zone")) | set(escpush.datasets("account"))
    for scope in ("zone", "account"):
        for name in escpush.datasets(scope):
            types = escpush.dataset_fields(name, scope=scope)
            assert types and all(isinstance(t, str) and t for t in types.values()), (scope, name)
    assert "gateway_dns" not in escpush.datasets("zone")
    assert escpush.datasets("account").count("firewall_events") == 1
    fields = escpush.dataset_fields("http_requests")
    assert {"ClientIP", "ClientRequestHost", "EdgeResponseStatus", "RayID"} <= set(fields)
    assert fields["EdgeResponseStatus"] == "int"
    assert fields["SecuritySources"] == "array[string]"
    assert fields["EdgeStartTimestamp"] == "int or string"
    # The account page lists the zone page's fields (issue 24; tests/filter/test_datasets.py).
    assert escpush.dataset_fields("websocket_analytics", scope="account") == escpush.dataset_fields(
        "websocket_analytics"
    )
    with pytest.raises(InvalidInput):
        escpush.dataset_fields("nope")


# -- the sample filters ------------------------------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_filters_parse_validate_and_round_trip(path: Path) -> None:
    text = path.read_text().strip()
    f = Filter.parse(text)
    f.validate("http_requests")
    assert f.to_json() == text
    assert Filter.parse(f.to_json()) == f
    assert Filter.from_dict(f.to_dict()) == f
    assert Filter.parse(json.dumps(text)) == f


def test_six_samples_are_there() -> None:
    assert [p.stem for p in SAMPLES] == [
        "a_eq_string",
        "b_geq_int",
        "c_and3",
        "d_or_nested",
        "e_large",
        "f_array_contains",
    ]


# -- evaluation ------------------------------------------------------------------------


def test_matches_follows_the_evaluation_rules() -> None:
    f = Filter.parse((Path(__file__).parents[1] / "data" / "filters" / "d_or_nested.json").read_text())
    hit = {"ClientRequestMethod": "POST", "BotScore": 12}
    assert f.matches(hit)
    assert f.matches(json.dumps(hit)) and f.matches(json.dumps(hit).encode())
    assert not f.matches({"ClientRequestMethod": "GET", "BotScore": 12})
    assert f.matches({"EdgeResponseStatus": 404}), "a missing Referer makes !startsWith true"
    assert not f.matches({"EdgeResponseStatus": 404, "ClientRequestReferer": "https://x"})
    assert f.matches({"EdgeResponseStatus": "404", "WorkerSubrequest": True})
    assert not f.matches({})
    with pytest.raises(InvalidInput, match="the record is not a JSON object"):
        f.matches("{nope")
    with pytest.raises(InvalidInput, match="not a JSON object"):
        f.matches("[1]")


def test_json_lines_read_numbers_as_json_loads_does() -> None:
    zero = field("N") == "0"
    assert zero.matches('{"N": -0}') and zero.matches({"N": -0})
    big = 2**70
    assert (field("N") == str(big)).matches(f'{{"N": {big}}}')
    assert (field("N") == str(big)).matches({"N": big})
    assert not (field("N") == "200").matches('{"N": 200.0}'), "floats have no canonical text"
    assert (field("N") > 199).matches('{"N": 2e2}')


def test_matches_takes_any_mapping() -> None:
    class Lazy(dict):  # type: ignore[type-arg]
        pass

    import collections

    f = field("A") == "x"
    assert f.matches(collections.OrderedDict(A="x"))
    assert f.matches(Lazy(A="x"))
    assert (field("A") != "x").matches(collections.ChainMap({}))


def test_matches_reads_only_what_it_needs_and_raises_lookup_errors() -> None:
    class Strict(dict):  # type: ignore[type-arg]
        def __missing__(self, key: str) -> object:
            raise KeyError(key)

    class Broken:
        def __getitem__(self, key: str) -> object:
            raise RuntimeError("backend down")

    f = (field("A") == "x") | (field("B") == "y")
    assert f.matches(Strict(A="x"))
    with pytest.raises(RuntimeError, match="backend down"):
        f.matches(Broken())
    with pytest.raises(TypeError, match="a log record holds JSON values"):
        (field("A") == "x").matches({"A": {1, 2}})
    assert (field("A") == "x").matches({"A": "x", "B": {1, 2}}), "fields the filter does not read are not converted"
