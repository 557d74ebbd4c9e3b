"""Waiting for a table to be ACTIVE asks again after a server error.

The plan is driven step by step, as a transport drives it: DynamoDB Local at
times answers InternalFailure to a DescribeTable while it builds an index, and
a wait that gave up there failed whole test runs.
"""
from __future__ import annotations

import pytest

from tallydb.engine.errors import InternalServerError, ResourceNotFoundException
from tallydb.toolkit.exceptions import error_from_response
from tallydb.toolkit.table_spec import p_wait_active
from tallydb.toolkit.transport import Call, Sleep


def _described(status: str) -> dict[str, object]:
    return {"Table": {"TableName": "t", "TableStatus": "ACTIVE",
                      "GlobalSecondaryIndexes": [{"IndexName": "g", "IndexStatus": status}]}}


def test_a_server_error_while_waiting_is_asked_again() -> None:
    plan = p_wait_active("t", timeout=60, indexes=True)
    assert plan.send(None) == Call("DescribeTable", {"TableName": "t"})
    failure = InternalServerError("The server encountered an internal error")
    assert isinstance(plan.throw(failure), Sleep)
    assert plan.send(None) == Call("DescribeTable", {"TableName": "t"})
    assert isinstance(plan.throw(_internal_failure()), Sleep)
    assert plan.send(None) == Call("DescribeTable", {"TableName": "t"})
    assert isinstance(plan.send(_described("CREATING")), Sleep)
    assert plan.send(None) == Call("DescribeTable", {"TableName": "t"})
    with pytest.raises(StopIteration):
        plan.send(_described("ACTIVE"))


def test_a_server_error_past_the_timeout_is_raised() -> None:
    plan = p_wait_active("t", timeout=0)
    plan.send(None)
    with pytest.raises(InternalServerError):
        plan.throw(InternalServerError("The server encountered an internal error"))


def test_a_client_error_while_waiting_is_raised() -> None:
    plan = p_wait_active("t", timeout=60)
    plan.send(None)
    with pytest.raises(ResourceNotFoundException):
        plan.throw(ResourceNotFoundException("Requested resource not found"))


def _internal_failure() -> Exception:
    # DynamoDB Local's answer, as botocore hands it to the toolkit
    return error_from_response({
        "Error": {"Code": "InternalFailure", "Message": "The request processing has failed "
                  "because of an unknown error, exception or failure."},
        "ResponseMetadata": {"HTTPStatusCode": 500}})
