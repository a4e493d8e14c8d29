"""Test helpers: an emulator of the ESC API on loopback, for your own tests and scripts.

::

    from escpush.testing import Emulator

    with Emulator() as emu:                       # a real HTTP server on 127.0.0.1, random port
        client = emu.client()                     # a Client with the emulator's credentials
        client.zone("z1").esc.disable()
        assert emu.state()["zones"]["z1"]["esc"]["always"] is True
        emu.fail_next(status=429, count=2, retry_after=1)

With pytest, the fixture ``escpush_emulator`` gives a fresh, running ``Emulator`` per test.

What the emulator does where the spec says "not shown": DELETE clears ``always`` and keeps a
configured secret; a GET shows ``always`` and ``with_secret`` each when it applies (both when
both do, ``{}`` when neither); setting a secret leaves ``always`` as it was; every id exists.
The request log keeps the most recent requests (``log_capacity``, 10,000 by default), each
with the answer it got, and shows ``***`` for the values of ``X-Auth-Key``, ``Authorization``,
``Cookie``, every ``with_secret`` and a job's credentials, in requests and answers alike
(core's redaction: ``escpush._escpush._SECRET_HEADERS``, ``_SECRET_BODY_KEYS``); the state
shows only whether a secret is set and its length.

Edge mode (``emu.serve_site(zone)``) serves a zone's site whose responses ESC alters unless
ESC is off for the request, for ``zone.esc.assess(...)`` and other end-to-end tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

from ._escpush import Client, EmulatorServer

__all__ = ["Emulator"]


class Emulator:
    """A running emulator of the ESC API on 127.0.0.1; stop it with ``close()`` or ``with``.

    ``port=0`` (the default) picks a free port. Credentials not given are random; read them
    from ``api_key``, ``email`` and ``api_token`` to configure other clients (curl, SDKs).
    The request log keeps the ``log_capacity`` most recent requests (None: the emulator's
    default, 10,000), so that a long-running emulator stays bounded.

    Threads and memory stay bounded whatever clients do: at most ``max_connections``
    connections (default 256) are served at once; at the cap a new connection replaces the
    one that has waited longest for its next request (idle, or sending its head slowly), or
    gets a 503 when every one is busy answering. A connection is closed when no request
    begins within ``idle_timeout`` seconds (default 30) or a request is not whole within
    ``request_timeout`` seconds of its first byte (default 10).
    """

    def __init__(
        self,
        port: int = 0,
        *,
        api_key: str | None = None,
        email: str | None = None,
        api_token: str | None = None,
        log_capacity: int | None = None,
        max_connections: int | None = None,
        idle_timeout: float | None = None,
        request_timeout: float | None = None,
    ) -> None:
        self._server = EmulatorServer(
            port,
            api_key=api_key,
            email=email,
            api_token=api_token,
            log_capacity=log_capacity,
            max_connections=max_connections,
            idle_timeout=idle_timeout,
            request_timeout=request_timeout,
        )

    def __enter__(self) -> Emulator:  # noqa: PYI034 (Self needs typing_extensions on 3.9)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stops the server and closes its connections (idempotent)."""
        self._server.stop()

    def __repr__(self) -> str:
        state = "running" if self._server.running else "stopped"
        return f"Emulator(base_url={self.base_url!r}, {state})"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:{port}/client/v4``."""
        return self._server.base_url

    @property
    def port(self) -> int:
        """The TCP port the emulator listens on (127.0.0.1)."""
        return self._server.port

    @property
    def api_key(self) -> str:
        """The ``X-Auth-Key`` the emulator accepts."""
        return self._server.api_key

    @property
    def email(self) -> str:
        """The ``X-Auth-Email`` the emulator accepts."""
        return self._server.email

    @property
    def api_token(self) -> str:
        """The bearer token the emulator accepts."""
        return self._server.api_token

    def client(self, *, token: bool = False, **kwargs: Any) -> Client:
        """A :class:`escpush.Client` for this emulator: with the API key and email, or with
        the token when ``token=True``. Retries wait 10 ms unless ``retry_backoff`` is given;
        other keyword arguments go to ``Client``."""
        kwargs.setdefault("retry_backoff", 0.01)
        if token:
            return Client(api_token=self.api_token, base_url=self.base_url, **kwargs)
        return Client(api_key=self.api_key, email=self.email, base_url=self.base_url, **kwargs)

    def state(self) -> dict[str, Any]:
        """``{"zones": {id: {"esc": {"always", "secret_set", "secret_length"}}}, "accounts": {...}}``."""
        return self._server.state()

    def requests(self) -> list[dict[str, Any]]:
        """The most recent requests received (at most ``log_capacity``), oldest first:
        ``method``, ``path``, ``headers`` (lower-case names, credentials redacted), ``body``
        (secrets redacted), ``status`` (None when the connection was dropped), ``answer`` (the
        JSON body answered, secrets redacted; None when a fault made the answer, for the
        ``/__emulator`` routes, or when nothing was answered), ``fault``, ``received`` (when
        the whole request had arrived, seconds since the epoch)."""
        return self._server.requests()

    def stats(self) -> dict[str, int]:
        """``open_connections`` now; since the start, ``evicted`` (closed to make room at the
        cap), ``refused`` (answered 503 at the cap) and ``requests`` (received; the log keeps
        only the most recent)."""
        return self._server.stats()

    def fail_next(
        self,
        status: int | None = None,
        *,
        count: int = 1,
        retry_after: int | None = None,
        delay: float | None = None,
        trickle: float | None = None,
        stall: float | None = None,
        drip: float | None = None,
        body: bytes | str | None = None,
        malformed: bool = False,
        truncated: bool = False,
        drop: bool = False,
        drop_after_apply: bool = False,
        echo: bool = False,
    ) -> None:
        """The next ``count`` requests (any route) get one fault, chosen by exactly one of:

        - ``status`` alone: an error envelope with that status (100 to 599), and
          ``Retry-After: retry_after`` when given (0 to 4294967295 seconds);
        - ``body``: exactly that body (``Content-Type: application/json``) with ``status``
          (default 200; a 204 sends no body), the state untouched;
        - ``echo=True``: an error (``status``, default 400) whose message quotes the request's
          headers and body verbatim, as a careless server might;
        - ``delay``: seconds (0 to 86400) to wait before answering normally;
        - ``trickle``: answer normally but slowly: wait that many seconds (0 to 86400)
          before the head, then send the body over as long again;
        - ``stall``: answer normally, the head at once, then wait that many seconds (0 to
          86400) before the body: a server that stalls after its headers;
        - ``drip``: answer normally, the head at once, then the body one byte every
          ``drip`` seconds (0 to 86400): a server that trickles;
        - ``malformed=True``: a 200 whose body is not JSON;
        - ``truncated=True``: a body cut short, then the connection closed;
        - ``drop=True``: the connection closed unanswered, the request not applied;
        - ``drop_after_apply=True``: the request applied (a job created, ESC switched),
          then the connection closed unanswered: the client cannot know it took effect.

        ``count`` is 0 to 1,000,000. The emulator checks every argument and raises
        :class:`escpush.InvalidInput` naming the one out of range.
        """
        self._server.fail_next(
            count=count,
            status=status,
            retry_after=retry_after,
            delay=delay,
            trickle=trickle,
            stall=stall,
            drip=drip,
            body=body,
            malformed=malformed,
            truncated=truncated,
            drop=drop,
            drop_after_apply=drop_after_apply,
            echo=echo,
        )

    def clear_faults(self) -> None:
        """Drops the pending faults."""
        self._server.clear_faults()

    def clear_requests(self) -> None:
        """Forgets the requests received so far."""
        self._server.clear_requests()

    def reset(self) -> None:
        """Forgets state, requests and faults."""
        self._server.reset()

    def esc_disabled_for(
        self, zone: str | None = None, *, account: str | None = None, cookie: str | None = None
    ) -> bool:
        """Whether a request to ``zone`` (or ``account``) carrying the ``Cookie`` header
        ``cookie`` would be served with ESC disabled: the per-request test of the spec."""
        if (zone is None) == (account is None):
            raise ValueError("give exactly one of zone= or account=")
        if zone is not None:
            return self._server.esc_disabled_for("zone", zone, cookie)
        assert account is not None
        return self._server.esc_disabled_for("account", account, cookie)

    def logpush_quirks(
        self,
        *,
        reserialize_filters: bool = False,
        field_drift: Mapping[str, Mapping[str, Any]] | None = None,
        transformers_unavailable: bool = False,
    ) -> None:
        """Makes the log-push routes behave as a real server may, so that a test proves a
        client copes: ``reserialize_filters`` stores job filters written back differently
        (members reordered, spaces, numbers as strings, groups nested), the case where naive
        infrastructure-as-code tools see a perpetual drift; ``field_drift`` makes a dataset's
        live field list differ from the embedded schema, ``{dataset: {"add": {name:
        description}, "remove": [name, ...]}}``; ``transformers_unavailable`` answers every
        transformer endpoint 403 "transformer feature is not available for this account", as
        for an account without the feature (transformers.mdx). Each call replaces the previous quirks;
        ``logpush_quirks()`` turns them off. Raises :class:`escpush.InvalidInput` naming what
        is wrong."""
        import json

        config: dict[str, Any] = {
            "reserialize_filters": reserialize_filters,
            "transformers_unavailable": transformers_unavailable,
        }
        if field_drift is not None:
            config["field_drift"] = field_drift
        self._server.set_logpush_quirks(json.dumps(config))

    def written_challenge(self, destination_conf: str, zone: str | None = None, *, account: str | None = None) -> str:
        """The ownership challenge the emulator wrote into ``destination_conf`` for ``zone``
        (or ``account``) after ``logpush.ownership_challenge(destination_conf)``: what reading
        the challenge file from your bucket gives, to pass as a job's ``ownership_challenge``.
        Raises ``LookupError`` if none was asked for."""
        if (zone is None) == (account is None):
            raise ValueError("give exactly one of zone= or account=")
        kind, scope_id = ("zone", zone) if zone is not None else ("account", account)
        assert scope_id is not None
        token = self._server.written_challenge(kind, scope_id, destination_conf)
        if token is None:
            raise LookupError(f"no ownership challenge was asked for this destination of {kind} {scope_id}")
        return token

    def ownership_challenges(self) -> list[dict[str, str]]:
        """The ownership challenges the emulator issued, oldest first: ``scope``, ``id``,
        ``destination_conf`` (credentials masked) and ``challenge``, the token the API writes
        into the destination, for a test to pass to ``validate_ownership``."""
        challenges: list[dict[str, str]] = self._server.logpush_control()["challenges"]
        return challenges

    def serve_site(
        self,
        zone: str,
        *,
        account: str | None = None,
        pages: Mapping[str, Mapping[str, Any]] | None = None,
        esc: Sequence[Mapping[str, Any]] | None = None,
        delay: float = 0.0,
    ) -> str:
        """Edge mode: serves the site of ``zone`` on its own port of 127.0.0.1 and returns
        its root URL (``http://127.0.0.1:{port}``). ESC alters its responses unless ESC is off
        for the request: the zone (or ``account``, the zone's account) disabled, or the cookie
        ``disable_esc`` equal to the zone's or the account's secret. A change of ``always``
        reaches the site ``delay`` seconds after the API made it (secrets apply at once).

        ``pages`` is the origin, ``{path: {"status": 200, "headers": {name: value}, "body":
        "...", "reflect_cookie": False}}`` (another path answers 404; with ``reflect_cookie``,
        ``{cookie}`` in the header values and the body is the request's ``Cookie`` header, as
        an origin that echoes what it was sent); ``esc`` what ESC does, a list of ``{"path":
        "*" | "/exact" | "/prefix*"`` and one of ``"set_header": {name: value}``,
        ``"remove_header": name``, ``"redirect": location`` (``"status"``, default 301) or
        ``"respond": body`` (``"status"``, default 200)``}``. Without them, the demo site:
        ``/``, ``/new`` (200) and ``/old`` (404) at the origin; ESC sets ``X-ESC: on`` and
        redirects ``/old`` to ``/new``. Every response carries a random ``CF-Ray``. Serving a
        zone again replaces its site at the same URL. Raises :class:`escpush.InvalidInput`
        naming the member at fault.
        """
        import json

        config: dict[str, Any] = {"zone": zone, "account": account, "delay": delay}
        if pages is not None:
            config["pages"] = pages
        if esc is not None:
            config["esc"] = esc
        return self._server.serve_site(json.dumps(config))

    def sites(self) -> dict[str, str]:
        """The root URL of each zone's site, by zone id."""
        return self._server.sites()
