"""Pages and JSON go out in Brotli to a client that accepts it, else gzip, else as they are; short,
streaming, already encoded and binary responses are left alone; every response that could have been
compressed varies on Accept-Encoding (web/compression.py)."""

from __future__ import annotations

import gzip

import brotli
import pytest
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.test import Client, RequestFactory

from web.compression import MIN_LENGTH, CompressionMiddleware, accepted_codings, chosen_coding

PAGE = ("<!doctype html><title>Iron Marches</title>" + "<p>The party rolls for initiative.</p>" * 60).encode()


def through(response: HttpResponse | StreamingHttpResponse, accept: str | None) -> HttpResponse:
    headers = {} if accept is None else {"Accept-Encoding": accept}
    request = RequestFactory().get("/", headers=headers)
    return CompressionMiddleware(lambda request: response)(request)


@pytest.mark.parametrize(
    ("header", "coding"),
    [
        ("gzip, deflate, br, zstd", "br"),
        ("br", "br"),
        ("gzip;q=1.0, br;q=0.5", "br"),
        ("gzip, br;q=0", "gzip"),
        ("GZIP", "gzip"),
        ("deflate", None),
        ("identity", None),
        ("", None),
        ("gzip;q=0, br;q=0", None),
        ("br;q=nonsense, gzip", "gzip"),
    ],
)
def test_brotli_is_chosen_first_and_a_zero_weight_refuses(header: str, coding: str | None) -> None:
    assert chosen_coding(header) == coding


def test_accepted_codings_skip_what_cannot_be_read() -> None:
    assert accepted_codings("br, ;q=1, gzip;q=, x y") == {"br"}


def test_a_page_goes_out_in_brotli_when_the_client_accepts_it() -> None:
    response = through(HttpResponse(PAGE), "gzip, deflate, br")
    assert response["Content-Encoding"] == "br"
    assert brotli.decompress(response.content) == PAGE
    assert int(response["Content-Length"]) == len(response.content) < len(PAGE) / 5
    assert "Accept-Encoding" in response["Vary"]


def test_gzip_when_brotli_is_not_accepted() -> None:
    response = through(HttpResponse(PAGE), "gzip, deflate")
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == PAGE
    assert "Accept-Encoding" in response["Vary"]


def test_json_is_compressed_too() -> None:
    data = {"rolls": [{"label": "Strength", "faces": [13, 6], "result": 19}] * 40}
    response = through(JsonResponse(data), "br")
    assert response["Content-Encoding"] == "br"
    assert brotli.decompress(response.content) == JsonResponse(data).content


def test_as_it_is_to_a_client_that_accepts_neither_but_still_varying() -> None:
    response = through(HttpResponse(PAGE), None)
    assert not response.has_header("Content-Encoding")
    assert response.content == PAGE
    assert "Accept-Encoding" in response["Vary"]  # a cache must not give this one to a client that accepts br


def test_a_short_response_is_left_alone() -> None:
    short = b"x" * (MIN_LENGTH - 1)
    response = through(HttpResponse(short), "br")
    assert response.content == short
    assert not response.has_header("Content-Encoding")


@pytest.mark.parametrize(
    "response",
    [
        HttpResponse(PAGE, content_type="image/png"),
        HttpResponse(PAGE, content_type="application/zip"),
        HttpResponse(PAGE, headers={"Content-Encoding": "gzip"}),
        HttpResponse(PAGE, headers={"Cache-Control": "private, no-transform"}),
    ],
    ids=["image", "archive", "already-encoded", "no-transform"],
)
def test_binary_encoded_and_no_transform_responses_are_left_alone(response: HttpResponse) -> None:
    encoding = response.get("Content-Encoding")
    sent = through(response, "gzip, br")
    assert sent.content == PAGE
    assert sent.get("Content-Encoding") == encoding


def test_a_streaming_response_is_sent_as_it_is_produced() -> None:
    chunks = [PAGE, PAGE]
    sent = through(StreamingHttpResponse(iter(chunks)), "gzip, br")
    assert not sent.has_header("Content-Encoding")
    assert b"".join(sent.streaming_content) == PAGE + PAGE


def test_a_strong_etag_becomes_weak_once_compressed() -> None:
    sent = through(HttpResponse(PAGE, headers={"ETag": '"abc"'}), "br")
    assert sent["ETag"] == 'W/"abc"'


def test_a_page_through_the_whole_middleware_stack() -> None:
    """The real About page: compressed, and decompressed it is the page a client without br gets
    (but for the CSRF token, masked anew for each response)."""
    client = Client()
    plain = client.get("/about/")
    compressed = client.get("/about/", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert compressed["Content-Encoding"] == "br"
    assert "Accept-Encoding" in compressed["Vary"]
    page = brotli.decompress(compressed.content)
    assert len(page) == len(plain.content)
    assert b"About Dicehall" in page
    assert len(compressed.content) < len(page) / 3
