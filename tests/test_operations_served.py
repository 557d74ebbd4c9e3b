"""Every operation of botocore's DynamoDB and DynamoDB Streams models is
served, but those left out with a stated reason."""

from __future__ import annotations

import botocore.session

from tallydb.engine.api import OPERATIONS

#: What tallydb does not serve, and why.
LEFT_OUT = {
    "SearchVectors": "vector search is out of tallydb's scope",
}


def test_every_operation_is_served_but_those_left_out_with_a_reason() -> None:
    session = botocore.session.get_session()
    missing = {name for service in ("dynamodb", "dynamodbstreams")
               for name in session.get_service_model(service).operation_names
               if name not in OPERATIONS}
    assert missing <= set(LEFT_OUT), sorted(missing - set(LEFT_OUT))
