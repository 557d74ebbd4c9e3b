"""SigV4 when credentials are configured; anything goes when they are not."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from serverkit import StubServer, post
from tallytest import session_client

from tallydb.server.auth import Verifier

pytest_plugins = ["server_fixtures"]

KEYS = {"AKIDTALLY": "s3cret", "AKIDOTHER": "other"}
MISSING = "Request is missing Authentication Token"
INVALID_TOKEN = "The security token included in the request is invalid."
MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. "
    "Consult the service documentation for details."
)


def client(url: str, key: str, secret: str) -> Any:
    return session_client(
        "dynamodb",
        endpoint_url=url,
        region_name="eu-west-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        config=Config(retries={"total_max_attempts": 1}),
    )


def code_and_message(error: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = error.value.response
    return (
        response["Error"]["Code"],
        response["Error"]["Message"],
        response["ResponseMetadata"]["HTTPStatusCode"],
    )


def signed(url: str, body: bytes, key: str = "AKIDTALLY", secret: str = "s3cret",
           target: str = "DynamoDB_20120810.Echo") -> dict[str, str]:
    request = AWSRequest(
        method="POST",
        url=url + "/",
        data=body,
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target},
    )
    SigV4Auth(Credentials(key, secret), "dynamodb", "us-east-1").add_auth(request)
    return dict(request.headers.items())


@pytest.fixture
def secured(stub_factory: Callable[..., StubServer]) -> StubServer:
    return stub_factory(credentials=KEYS)


def test_boto3_with_a_configured_key_is_served(secured: StubServer) -> None:
    for key, secret in KEYS.items():
        assert client(secured.url, key, secret).list_tables()["TableNames"] == []


def test_wrong_secret_is_invalid_signature(secured: StubServer) -> None:
    with pytest.raises(ClientError) as error:
        client(secured.url, "AKIDTALLY", "wrong").list_tables()
    assert code_and_message(error) == ("InvalidSignatureException", MISMATCH, 400)


def test_unknown_key_is_unrecognized_client(secured: StubServer) -> None:
    with pytest.raises(ClientError) as error:
        client(secured.url, "AKIDNOBODY", "s3cret").list_tables()
    assert code_and_message(error) == ("UnrecognizedClientException", INVALID_TOKEN, 400)


def test_no_signature_is_missing_authentication_token(secured: StubServer) -> None:
    answer = post(secured.url, "Echo", {})
    assert answer.status == 400
    assert answer.json == {
        "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
        "message": MISSING,
    }
    answer = post(secured.url, "Echo", {}, headers={"Authorization": "AWS4"})
    assert answer.json["message"] == MISSING


def test_incomplete_authorization_header(secured: StubServer) -> None:
    # dynalite's test/connection.js, byte for byte
    answer = post(secured.url, "Echo", {}, headers={"Authorization": "AWS4-"})
    assert answer.json == {
        "__type": "com.amazon.coral.service#IncompleteSignatureException",
        "message": "Authorization header requires 'Credential' parameter. "
        "Authorization header requires 'Signature' parameter. "
        "Authorization header requires 'SignedHeaders' parameter. "
        "Authorization header requires existence of either a 'X-Amz-Date' or "
        "a 'Date' header. Authorization=AWS4-",
    }


def test_unsigned_payload_does_not_take_the_body_out_of_the_signature(
    secured: StubServer,
) -> None:
    # DynamoDB signs the payload: a request signed with
    # X-Amz-Content-SHA256: UNSIGNED-PAYLOAD verifies only against the body's
    # own hash, so a body swapped after signing is refused.
    request = AWSRequest(
        method="POST",
        url=secured.url + "/",
        data=b'{"n": 1}',
        headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.Echo",
            "X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD",
        },
    )
    SigV4Auth(Credentials("AKIDTALLY", "s3cret"), "dynamodb", "us-east-1").add_auth(request)
    headers = dict(request.headers.items())
    for body in (b'{"n": 2}', b'{"n": 1}'):
        answer = post(secured.url, None, body, headers=headers)
        assert answer.status == 400
        assert answer.json == {
            "__type": "com.amazon.coral.service#InvalidSignatureException",
            "message": MISMATCH,
        }


def test_body_changed_after_signing_is_rejected(secured: StubServer) -> None:
    headers = signed(secured.url, b'{"n": 1}')
    headers.pop("Content-Length", None)
    assert post(secured.url, None, b'{"n": 1}', headers=headers).json == {"Echo": {"n": 1}}
    answer = post(secured.url, None, b'{"n": 2}', headers=headers)
    assert answer.json["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert answer.json["message"] == MISMATCH


def test_target_and_json_are_checked_before_the_signature(secured: StubServer) -> None:
    # As DynamoDB: an unknown operation or a broken body is reported as
    # such even to an unsigned client.
    assert post(secured.url, "NoSuch", {}).error_type.endswith("#UnknownOperationException")
    assert post(secured.url, "Echo", b"hi").error_type.endswith("#SerializationException")


def test_without_credentials_anything_is_accepted(stub: StubServer) -> None:
    assert post(stub.url, "Echo", {}).status == 200
    assert client(stub.url, "anything", "at all").list_tables()["TableNames"] == []


# -- the verifier itself ------------------------------------------------------


def _headers_of(url: str, body: bytes) -> list[tuple[str, str]]:
    headers = signed(url, body)
    return [*headers.items(), ("Host", url.split("//", 1)[1])]


def test_expired_and_future_signatures() -> None:
    url = "http://127.0.0.1:8000"
    body = json.dumps({}).encode()
    headers = _headers_of(url, body)
    verifier = Verifier(KEYS)
    now = datetime.now(UTC)
    verifier.verify("POST", "/", headers, body, now=now)
    with pytest.raises(Exception, match=r"^Signature expired: \d{8}T\d{6}Z is now earlier than"):
        verifier.verify("POST", "/", headers, body, now=now + timedelta(minutes=20))
    with pytest.raises(Exception, match=r"^Signature not yet current: "):
        verifier.verify("POST", "/", headers, body, now=now - timedelta(minutes=20))


def test_credential_scope_problems() -> None:
    url = "http://127.0.0.1:8000"
    body = b"{}"
    headers = dict(_headers_of(url, body))
    auth = headers["Authorization"]
    verifier = Verifier(KEYS)
    wrong_service = auth.replace("/dynamodb/", "/s3/")
    with pytest.raises(Exception, match="Credential should be scoped to correct service"):
        verifier.verify("POST", "/", list({**headers, "Authorization": wrong_service}.items()),
                        body)
    short = auth.replace("/aws4_request", "")
    with pytest.raises(Exception, match="Credential must have exactly 5 slash-delimited"):
        verifier.verify("POST", "/", list({**headers, "Authorization": short}.items()), body)


# -- the canonical request built directly, and the signing keys kept -----------


def test_the_direct_canonical_request_is_botocores() -> None:
    """For ``POST /`` the verifier builds SigV4's canonical request itself:
    over many header sets (names signed twice, signed but absent, in any
    case, values repeated and with runs of whitespace) it is botocore's."""
    import random

    from tallydb.server.auth import _botocore_canonical, _by_name, canonical_request

    rng = random.Random(7)
    names = ["Host", "X-Amz-Date", "x-amz-target", "Content-Type", "X-Custom", "x-custom"]
    values = ["a", " spaced  out\t", "a,b", "", "x\xa0y", "\u00e9t\u00e9", "  "]
    for _ in range(2000):
        headers = [(rng.choice(names), rng.choice(values)) for _ in range(rng.randrange(1, 7))]
        headers.append(("Host", "127.0.0.1:8000"))
        signed = [rng.choice(names).lower() for _ in range(rng.randrange(1, 5))]
        body = rng.choice([b"", b"{}", b'{"TableName":"t"}'])
        by_name = _by_name(headers)
        assert canonical_request("POST", by_name, signed, body) == _botocore_canonical(
            "POST", "/", headers, body, "127.0.0.1:8000", "20260101T000000Z", "AKIDTALLY",
            "s3cret", "us-east-1", signed), (headers, signed)


def test_a_kept_signing_key_serves_only_its_own_secret() -> None:
    """The signing key is derived once per secret, date, region and
    service: after a request signed by the right secret, one signed by
    another secret under the same key id, date and region is still refused,
    and the right one still passes."""
    url = "http://127.0.0.1:8000"
    body = b"{}"
    verifier = Verifier(KEYS)
    right = _headers_of(url, body)
    verifier.verify("POST", "/", right, body)
    wrong = [*signed(url, body, secret="not-s3cret").items(), ("Host", "127.0.0.1:8000")]
    with pytest.raises(Exception, match=MISMATCH):
        verifier.verify("POST", "/", wrong, body)
    verifier.verify("POST", "/", right, body)


def test_the_kept_signing_keys_are_bounded() -> None:
    from tallydb.toolkit.sigv4 import SigningKeys

    keys = SigningKeys()
    first = keys.get("s3cret", "20260101", "region-0", "dynamodb")
    for n in range(SigningKeys.KEPT * 2):
        keys.get("s3cret", "20260101", f"region-{n}", "dynamodb")
    assert len(keys._keys) == SigningKeys.KEPT
    assert keys.get("s3cret", "20260101", "region-0", "dynamodb") == first  # derived again
    assert keys.get("other", "20260101", "region-0", "dynamodb") != first


def test_a_signature_of_any_characters_is_a_mismatch() -> None:
    """A Signature (or payload hash) holding characters beyond ASCII is
    compared as bytes, and refused as any wrong signature is."""
    url = "http://127.0.0.1:8000"
    body = b"{}"
    headers = dict(_headers_of(url, body))
    auth = headers["Authorization"]
    bad = auth[: auth.index("Signature=") + len("Signature=")] + "\u00e9" * 64
    with pytest.raises(Exception, match=MISMATCH):
        Verifier(KEYS).verify("POST", "/", list({**headers, "Authorization": bad}.items()), body)
    with pytest.raises(Exception, match="x-amz-content-sha256"):
        Verifier(KEYS).verify(
            "POST", "/", [*headers.items(), ("X-Amz-Content-SHA256", "\u00e9")], body)
