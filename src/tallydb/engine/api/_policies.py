"""Resource-based policies of tables and streams: kept, checked, and
evaluated.

A table keeps its policy, and each of its streams', in its description
(``POLICIES``: by resource ARN, stored form, the policy text exactly as
given and its RevisionId). ``check`` refuses what DynamoDB refuses with
"One or more parameter values were invalid: Invalid policy document: ..."
(the wording DynamoDB answers, as quoted in aws-controllers-k8s'
dynamodb-controller; the details after it are ours): text that is not a
JSON object, over 20 KB, without statements, an Effect other than Allow
or Deny, a statement without a Principal, an action that is not
DynamoDB's (``dynamodb:`` and an operation name, or a wildcard pattern).

``decide`` evaluates a policy the way IAM does for the part a local server
can know, a small evaluator (no library on PyPI evaluates resource policies
that is kept up): a statement applies when its Principal names the caller's
ARN (or ``*``, or ``{"AWS": ...}`` with either; the account's root,
``arn:aws:iam::ACCOUNT:root``, names every principal of the account), its
Action (or NotAction) matches ``dynamodb:ACTION`` (``*`` and ``?``
wildcards, case-insensitive), and its Resource (or NotResource) matches
the resource's ARN. Conditions are not evaluated: a Deny with a Condition
applies as if it held (the safe reading), an Allow with one does not. An
explicit Deny wins over any Allow.

``enforce`` applies the kept policies to a request, in the engine's
pipeline, on what the request will touch as the engine resolved it
(``_access``): each touch of a table (or of one of its indexes) is decided
by the table's policy, each touch of a stream by that stream's; backups and
what is no table's have no policy. The caller is the signing key's
principal (``Access.caller``: its ``principal`` in the credentials file, by
default its user, ``arn:aws:iam::000000000000:user/KEY``). A Deny that applies refuses the
request with AccessDeniedException for an explicit deny; an Allow grants
nothing beyond what the key may already do. Without credentials no request
has a caller and nothing is enforced, as in DynamoDB Local.
``kept_anywhere`` lets a request that no policy can concern pay one
identity check of the catalog and nothing else.
"""

from __future__ import annotations

import fnmatch
import time
from typing import Any

import orjson

from tallydb.engine.api._access import Touch
from tallydb.engine.errors import AccessDeniedException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

__all__ = ["MAX_BYTES", "POLICIES", "check", "decide", "enforce",
           "kept_anywhere", "new_revision", "policy_of"]

POLICIES = "_ResourcePolicies"
MAX_BYTES = 20 * 1024
_INVALID = "One or more parameter values were invalid: Invalid policy document: "


def new_revision() -> str:
    """A RevisionId: the time in microseconds, as a number's digits."""
    return str(time.time_ns() // 1000)


def policy_of(record: TableRecord, arn: str) -> dict[str, str] | None:
    """The policy kept for ``arn`` (the table's, or one of its streams'), or None."""
    found: dict[str, str] | None = record.description.get(POLICIES, {}).get(arn)
    return found


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def check(text: str) -> None:
    """DynamoDB's refusals of a policy document."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ValidationException(_INVALID + f"Policy size exceeds {MAX_BYTES} bytes")
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValidationException(_INVALID + "The policy is not valid JSON") from None
    if not isinstance(document, dict) or "Statement" not in document:
        raise ValidationException(_INVALID + "The policy has no Statement")
    statements = _listed(document["Statement"])
    if not statements:
        raise ValidationException(_INVALID + "The policy has no Statement")
    invalid: list[str] = []
    for statement in statements:
        if not isinstance(statement, dict):
            raise ValidationException(_INVALID + "A statement is not a JSON object")
        if statement.get("Effect") not in ("Allow", "Deny"):
            raise ValidationException(_INVALID + "Effect must be Allow or Deny")
        if "Principal" not in statement and "NotPrincipal" not in statement:
            raise ValidationException(_INVALID + "Statement is missing required element: "
                                      "Principal")
        actions = statement.get("Action", statement.get("NotAction"))
        if actions is None:
            raise ValidationException(_INVALID + "Statement is missing required element: Action")
        for action in _listed(actions):
            if not isinstance(action, str) or not (
                    action == "*" or action.lower().startswith("dynamodb:")):
                invalid.append(f'"{action}"')
    if invalid:
        raise ValidationException(
            _INVALID + "The following action names are invalid: " + ", ".join(invalid))


def _matches(patterns: Any, value: str) -> bool:
    return any(isinstance(p, str) and fnmatch.fnmatchcase(value.lower(), p.lower())
               for p in _listed(patterns))


def _names(principal: Any, caller: str, account: str) -> bool:
    if principal == "*":
        return True
    if isinstance(principal, dict):
        principal = principal.get("AWS", [])
    for named in _listed(principal):
        if named in ("*", caller, account, f"arn:aws:iam::{account}:root"):
            return True
    return False


def _applies(statement: dict[str, Any], caller: str, account: str, action: str,
             resource: str) -> bool:
    if "Principal" in statement:
        if not _names(statement["Principal"], caller, account):
            return False
    elif _names(statement["NotPrincipal"], caller, account):
        return False
    if "Action" in statement:
        if not _matches(statement["Action"], action):
            return False
    elif _matches(statement.get("NotAction", []), action):
        return False
    if "Resource" in statement:
        if not _matches(statement["Resource"], resource):
            return False
    elif "NotResource" in statement and _matches(statement["NotResource"], resource):
        return False
    return statement["Effect"] == "Deny" or "Condition" not in statement


def decide(text: str, caller: str, action: str, resource: str) -> str | None:
    """"Deny", "Allow" or None (the policy says nothing) for ``caller`` (a
    principal ARN) doing ``action`` (``dynamodb:UpdateItem``) on ``resource``."""
    account = caller.split(":")[4] if caller.count(":") >= 5 else ""
    allowed = False
    for statement in _listed(orjson.loads(text).get("Statement", [])):
        if _applies(statement, caller, account, action, resource):
            if statement["Effect"] == "Deny":
                return "Deny"
            allowed = True
    return "Allow" if allowed else None


# --- enforcement -------------------------------------------------------------------------

#: The catalog last looked at (``Transaction.catalog_state``) and whether any
#: of its tables keeps a policy.
_LAST: list[Any] = [None, False]


def kept_anywhere(txn: Transaction) -> bool:
    """Whether any table, of any catalog, keeps a policy (its own or a
    stream's): derived again only when the catalog changed."""
    state = txn.catalog_state()
    last = _LAST
    if last[0] is not state:
        found = any(POLICIES in record.description for record in txn.all_tables())
        last[:] = [state, found]
    return bool(last[1])


def _deny_message(caller: str, action: str, resource: str) -> str:
    """IAM's message for an explicit deny in a resource-based policy, as its
    troubleshooting guide words it (DynamoDB's own for this case is not on
    record)."""
    return (f"User: {caller} is not authorized to perform: dynamodb:{action} on resource: "
            f"{resource} with an explicit deny in a resource-based policy")


def _governing(record: TableRecord, part: str) -> list[str]:
    """The kept policies that decide a touch of ``part`` of ``record``'s
    table: the table's for the table and its indexes, a stream's for it."""
    kept: dict[str, dict[str, str]] = record.description.get(POLICIES, {})
    stream = part.startswith("/stream/")
    if not stream and part and not part.startswith("/index/"):
        return []  # a backup: no policy of DynamoDB's names one
    found = []
    for arn, policy in kept.items():
        _, has_stream, label = arn.partition("/stream/")
        if (stream and has_stream and "/stream/" + label == part) or (
                not stream and not has_stream):
            found.append(policy["Policy"])
    return found


def enforce(txn: Transaction, caller: str, region: str, touches: tuple[Touch, ...]) -> None:
    """AccessDeniedException for the first touch a kept policy denies to
    ``caller`` (a principal's ARN)."""
    for touch in touches:
        if touch.table is None or touch.other:
            continue
        record = txn.table(touch.table)
        if record is None or POLICIES not in record.description:
            continue
        resource = touch.resource(region)
        action = "dynamodb:" + touch.action
        for text in _governing(record, touch.part):
            if decide(text, caller, action, resource) == "Deny":
                raise AccessDeniedException(_deny_message(caller, touch.action, resource))
