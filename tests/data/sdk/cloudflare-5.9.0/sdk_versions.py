# Vendored from the cloudflare-python SDK 5.9.0 sdist (PyPI `cloudflare==5.9.0`), file
# tests/api_resources/logpush/transformers/test_versions.py, Copyright Cloudflare, licensed under the Apache License 2.0
# (https://www.apache.org/licenses/LICENSE-2.0; the sdist's LICENSE). Modified only where
# marked "escpush:": its helper import reads the vendored sdk_utils.py. Run against the
# emulator by tests/logpush/test_sdk_transformers.py.
# File generated from our OpenAPI spec by Stainless. See CONTRIBUTING.md for details.

from __future__ import annotations

import os
from typing import Any, cast

import pytest

from cloudflare import Cloudflare, AsyncCloudflare
from sdk_utils import assert_matches_type  # escpush: was tests.utils
from cloudflare.pagination import SyncSinglePage, AsyncSinglePage
from cloudflare.types.logpush.transformers import VersionListResponse

base_url = os.environ.get("TEST_API_BASE_URL", "http://127.0.0.1:4010")


class TestVersions:
    parametrize = pytest.mark.parametrize("client", [False, True], indirect=True, ids=["loose", "strict"])

    @parametrize
    def test_method_list(self, client: Cloudflare) -> None:
        version = client.logpush.transformers.versions.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        )
        assert_matches_type(SyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    def test_method_list_with_all_params(self, client: Cloudflare) -> None:
        version = client.logpush.transformers.versions.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
            limit=1,
        )
        assert_matches_type(SyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    def test_raw_response_list(self, client: Cloudflare) -> None:
        response = client.logpush.transformers.versions.with_raw_response.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        )

        assert response.is_closed is True
        assert response.http_request.headers.get("X-Stainless-Lang") == "python"
        version = response.parse()
        assert_matches_type(SyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    def test_streaming_response_list(self, client: Cloudflare) -> None:
        with client.logpush.transformers.versions.with_streaming_response.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        ) as response:
            assert not response.is_closed
            assert response.http_request.headers.get("X-Stainless-Lang") == "python"

            version = response.parse()
            assert_matches_type(SyncSinglePage[VersionListResponse], version, path=["response"])

        assert cast(Any, response.is_closed) is True

    @parametrize
    def test_path_params_list(self, client: Cloudflare) -> None:
        with pytest.raises(ValueError, match=r"Expected a non-empty value for `account_id` but received ''"):
            client.logpush.transformers.versions.with_raw_response.list(
                transformer_id=42,
                account_id="",
            )


class TestAsyncVersions:
    parametrize = pytest.mark.parametrize(
        "async_client", [False, True, {"http_client": "aiohttp"}], indirect=True, ids=["loose", "strict", "aiohttp"]
    )

    @parametrize
    async def test_method_list(self, async_client: AsyncCloudflare) -> None:
        version = await async_client.logpush.transformers.versions.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        )
        assert_matches_type(AsyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    async def test_method_list_with_all_params(self, async_client: AsyncCloudflare) -> None:
        version = await async_client.logpush.transformers.versions.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
            limit=1,
        )
        assert_matches_type(AsyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    async def test_raw_response_list(self, async_client: AsyncCloudflare) -> None:
        response = await async_client.logpush.transformers.versions.with_raw_response.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        )

        assert response.is_closed is True
        assert response.http_request.headers.get("X-Stainless-Lang") == "python"
        version = await response.parse()
        assert_matches_type(AsyncSinglePage[VersionListResponse], version, path=["response"])

    @parametrize
    async def test_streaming_response_list(self, async_client: AsyncCloudflare) -> None:
        async with async_client.logpush.transformers.versions.with_streaming_response.list(
            transformer_id=42,
            account_id="023e105f4ecef8ad9ca31a8372d0c353",
        ) as response:
            assert not response.is_closed
            assert response.http_request.headers.get("X-Stainless-Lang") == "python"

            version = await response.parse()
            assert_matches_type(AsyncSinglePage[VersionListResponse], version, path=["response"])

        assert cast(Any, response.is_closed) is True

    @parametrize
    async def test_path_params_list(self, async_client: AsyncCloudflare) -> None:
        with pytest.raises(ValueError, match=r"Expected a non-empty value for `account_id` but received ''"):
            await async_client.logpush.transformers.versions.with_raw_response.list(
                transformer_id=42,
                account_id="",
            )
