"""``escpush.Job``: a log-push job as the API stores it, its credentials kept out of sight."""

from __future__ import annotations

from ._escpush import _job_filter, _redact_job, preview_job

__all__ = ["Job"]

# No `typing` at import time (see escpush.errors): type checkers see dict[str, Any], the
# interpreter a plain dict.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from typing_extensions import Self

    from ._escpush import Filter, PreviewResult

    _Dict = dict[str, Any]
else:
    _Dict = dict


class Job(_Dict):
    """A log-push job as the API stores it, returned by ``create_job``, ``jobs``, ``job``,
    ``update_job``, ``enable_job``, ``disable_job`` and (as ``["job"]``) ``ensure_job``.

    It is a ``dict`` (``job["id"]``, ``job["filter"]``, ``json.dumps(job)``, pickling; equal to
    the plain dict of the same items; two ``Job`` s that both hold a field's credential compare
    it too, so a rotated key is a difference) whose items never hold a credential: the parameters of
    ``destination_conf`` that may hold one (keys, tokens, signatures, a ``user:password@``)
    and an ``ownership_challenge`` (which no record from the API holds; one set on the job)
    read ``***`` (core's ``MASK``), as in every other result, so that printing,
    logging, ``json.dumps`` and pickling a job show none (core's ``redact_job``). A value set
    on it is masked the same way.

    Every documented field is also a read-only attribute, as on the SDK's ``LogpushJob``
    (``job.id``, ``job.dataset``, ``job.destination_conf``, ...: the fields of core's job
    field table, ``docs/job-rules.md``), typed as the table says; a field the record does not
    hold reads ``None``. An attribute shows what the item shows (a credential masked); set a
    field with ``job["name"] = ...``.

    ``reveal()`` gives the fields as the API sent them, credentials included, for the rare
    need (copying a destination to another job); a copy (``copy.copy``) keeps them, a
    pickled or JSON copy does not. ``parsed_filter`` reads its filter as an
    :class:`escpush.Filter`.
    """

    # The credentials masked out of the items: {field: (the masked value, the real one)}.
    __slots__ = ("_secrets",)
    _secrets: dict[str, tuple[Any, Any]]

    if TYPE_CHECKING:
        # The fields of core's table (the native module's _JOB_FIELDS), one each, typed by
        # its type and `always`: the attributes are made from the table at import (below), and
        # tests/logpush/test_job_attributes.py checks that these are the table's.
        @property
        def id(self) -> int:
            """The ``id`` field of the job record (None where the record does not hold it)."""

        @property
        def name(self) -> str | None:
            """The ``name`` field of the job record (None where the record does not hold it)."""

        @property
        def dataset(self) -> str | None:
            """The ``dataset`` field of the job record (None where the record does not hold it)."""

        @property
        def destination_conf(self) -> str | None:
            """The ``destination_conf`` field of the job record (None where the record does not hold it)."""

        @property
        def enabled(self) -> bool:
            """The ``enabled`` field of the job record (None where the record does not hold it)."""

        @property
        def logpull_options(self) -> str | None:
            """The ``logpull_options`` field of the job record (None where the record does not hold it)."""

        @property
        def filter(self) -> str | None:
            """The ``filter`` field of the job record (None where the record does not hold it)."""

        @property
        def kind(self) -> str | None:
            """The ``kind`` field of the job record (None where the record does not hold it)."""

        @property
        def frequency(self) -> str | None:
            """The ``frequency`` field of the job record (None where the record does not hold it)."""

        @property
        def max_upload_bytes(self) -> int | None:
            """The ``max_upload_bytes`` field of the job record (None where the record does not hold it)."""

        @property
        def max_upload_records(self) -> int | None:
            """The ``max_upload_records`` field of the job record (None where the record does not hold it)."""

        @property
        def max_upload_interval_seconds(self) -> int | None:
            """The ``max_upload_interval_seconds`` field of the job record (None where the record does not hold it)."""

        @property
        def output_options(self) -> dict[str, Any] | None:
            """The ``output_options`` field of the job record (None where the record does not hold it)."""

        @property
        def ownership_challenge(self) -> str | None:
            """The ``ownership_challenge`` field of the job record (None where the record does not hold it)."""

        @property
        def filter_attack_traffic(self) -> bool | None:
            """The ``filter_attack_traffic`` field of the job record (None where the record does not hold it)."""

        @property
        def merge_subrequests(self) -> bool | None:
            """The ``merge_subrequests`` field of the job record (None where the record does not hold it)."""

        @property
        def transformer_id(self) -> int | None:
            """The ``transformer_id`` field of the job record (None where the record does not hold it)."""

        @property
        def last_complete(self) -> str | None:
            """The ``last_complete`` field of the job record (None where the record does not hold it)."""

        @property
        def last_error(self) -> str | None:
            """The ``last_error`` field of the job record (None where the record does not hold it)."""

        @property
        def error_message(self) -> str | None:
            """The ``error_message`` field of the job record (None where the record does not hold it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self._secrets = {}
        self._absorb(dict(*args, **kwargs))

    def _absorb(self, items: Mapping[str, Any]) -> None:
        """Stores ``items`` masked, keeping the values masking changed aside."""
        shown = _redact_job(dict(items))
        secrets = self._held()
        for key, value in items.items():
            masked = shown[key]
            if masked is not value and masked != value:
                secrets[key] = (masked, value)
            else:
                secrets.pop(key, None)
            super().__setitem__(key, masked)

    def _held(self) -> dict[str, tuple[Any, Any]]:
        try:
            return self._secrets
        except AttributeError:  # made without __init__ (dict.__new__, a C-level copy)
            self._secrets = {}
            return self._secrets

    def __setitem__(self, key: str, value: Any) -> None:
        self._absorb({key: value})

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Set several fields, as ``dict.update`` does; credentials are masked as in every item."""
        self._absorb(dict(*args, **kwargs))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """As ``dict.setdefault``, the value masked as an item would be."""
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> Self:  # type: ignore[override,misc]
        self._absorb(dict(other))
        return self

    def reveal(self) -> dict[str, Any]:
        """A plain copy of the job with every field as the API sent it, credentials
        included: the real ``destination_conf`` and ``ownership_challenge``. Do not print or
        log it. A field set on the job since, or a job rebuilt from its masked items (a
        pickled or JSON copy), has only what it holds."""
        secrets = self._held()
        return {k: secrets[k][1] if k in secrets and secrets[k][0] == v else v for k, v in self.items()}

    def redacted(self) -> dict[str, Any]:
        """A plain copy of the job, safe to print or log (its items, already masked by
        core's ``redact_job``, the rule the emulator's log follows too)."""
        return _redact_job(dict(self))

    def preview(
        self,
        sample: Any,
        *,
        scope: str | None = None,
        seed: int | None = None,
        group_by: str | Sequence[str] | None = None,
        every: Any = None,
        out: Any = None,
        gzip: bool = True,
        threads: int | None = None,
        strict: bool = False,
        progress: Any = None,
    ) -> PreviewResult:
        """What this job would deliver for the logs of ``sample``: ``Logpush.preview`` of the
        job (its filter, ``output_options`` or ``logpull_options``, ``sample_rate`` and
        ``max_upload_*``); ``scope`` (``"zone"`` or ``"account"``) picks its dataset where both
        scopes have one of its name. No credential is read: a preview needs no destination."""
        return preview_job(
            dict(self),
            sample,
            scope=scope,
            seed=seed,
            group_by=group_by,
            every=every,
            out=out,
            gzip=gzip,
            threads=threads,
            strict=strict,
            progress=progress,
        )

    def to_transformer(self, *, scope: str | None = None) -> str:
        """The Logpush transformer that delivers what this job delivers: its ``filter`` as the
        ``WHERE`` and its fields (``output_options.field_names``, else the ``fields=`` of its
        ``logpull_options``; ``*`` without either) as the ``SELECT``, over its dataset
        (``Filter.to_transformer``). A job without a filter gives no ``WHERE``. Raises
        ``InvalidInput`` for a filter the transformer dialect cannot say."""
        from urllib.parse import parse_qs

        from . import check_transformer
        from .errors import InvalidInput

        dataset = self.get("dataset")
        if not isinstance(dataset, str):
            raise InvalidInput("a transformer reads the job's dataset: the job has none")
        options = self.get("output_options") or {}
        fields = options.get("field_names") if isinstance(options, dict) else None
        if fields is None and isinstance(self.get("logpull_options"), str):
            listed = parse_qs(self["logpull_options"]).get("fields")
            fields = listed[0].split(",") if listed else None
        f = self.parsed_filter
        if f is not None:
            return f.to_transformer(dataset=dataset, fields=fields, scope=scope)
        select = ",\n  ".join(f'"{name}"' for name in fields) if fields else "*"
        sql = f"SELECT\n  {select}\nFROM {dataset}"
        check_transformer(sql)  # the field names, against the dataset
        return sql

    @property
    def parsed_filter(self) -> Filter | None:
        """The job's ``filter`` as an :class:`escpush.Filter`, however the server wrote it
        (the JSON text with any spacing or member order, the quoted form, or an object);
        None when the job has no filter. Raises ``FilterError`` for a filter that does not
        parse."""
        return _job_filter(dict(self))

    def __eq__(self, other: object) -> bool:
        # A job and a plain dict: by the items the dict can see. Two jobs: by their items,
        # and where both hold the real credential of a field, by it too (their masked items
        # agree while their keys differ); a pickled copy holds none, and equals its original.
        if not isinstance(other, Job) or not dict.__eq__(self, other):
            return dict.__eq__(self, other)
        mine, theirs = self._known(), other._known()
        return all(mine[k] == theirs[k] for k in mine.keys() & theirs.keys())

    def _known(self) -> dict[str, Any]:
        """The real values of the masked items this job still holds."""
        return {k: real for k, (masked, real) in self._held().items() if k in self and self[k] == masked}

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # a dict: mutable, unhashable

    def __copy__(self) -> Job:
        new = Job(self)
        new._secrets = dict(self._held())
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Job:
        import copy

        new = Job(copy.deepcopy(dict(self), memo))
        new._secrets = copy.deepcopy(self._held(), memo)
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        # The masked items only: a pickle holds no credential.
        return (Job, (dict(self),))

    def __repr__(self) -> str:
        return f"Job({self.redacted()!r})"

    def _repr_html_(self) -> str:
        from ._display import job_html

        return job_html(self)

    def __getattr__(self, name: str) -> Any:
        # Only for a name that is not an attribute: say which field was meant.
        hint = ""
        if not name.startswith("_"):
            from ._escpush import _closest

            near = _closest(name, list(_FIELD_NAMES))
            hint = f"; did you mean `{near}`?" if near else ""
        raise AttributeError(f"'Job' object has no attribute {name!r}{hint}")


def _field(name: str) -> property:
    def get(self: Job) -> Any:
        return self.get(name)

    get.__name__ = name
    return property(get, doc=f"The job's ``{name}`` (``job[{name!r}]``; None when the record does not hold it).")


def _job_fields() -> tuple[str, ...]:
    from ._escpush import _JOB_FIELDS

    names = tuple(f["name"] for f in _JOB_FIELDS)
    for name in names:
        setattr(Job, name, _field(name))
    return names


_FIELD_NAMES = _job_fields()


# Shown, and pickled, under the name users import it by, like the native classes.
Job.__module__ = "escpush"
