"""The steps of one request, in DynamoDB's order: the one place that decides
what is checked before a table is looked up.

DynamoDB validates a request completely, its shape, its expressions and its
limits, before it looks up what the request names: a malformed request
about a table that does not exist is a ValidationException, never a
ResourceNotFoundException (architect/dynalite, whose tests were recorded
against DynamoDB, runs every validations/<operation>.js before any action
reads a table; DynamoDB Local does the opposite, and differs there). So
every request takes these steps, in this order (the server's, then
``api.run``):

0. the signature, with ``serve --credentials`` (``tallydb.server.auth``):
   MissingAuthenticationTokenException, UnrecognizedClientException,
   InvalidSignatureException... before anything of the request is read but
   its target and JSON (IAM user guide, "Access management for AWS
   resources": a request's principal is authenticated, then authorized);
1. the operation: UnknownOperationException for a target nothing serves;
2. the shape (``_shapes.check_request``): SerializationException for a
   member of the wrong JSON type, then every violated constraint of the
   model as one ValidationException; members outside the model are dropped
   (``known_members``);
3. access, for a key limited to some tables or to reading, or under a
   resource policy (``_access``, ``_policies``): the operation's ``ACCESS``
   resolves the request into what it will touch and AccessDeniedException
   refuses what the key may not, before the request's own validation and
   before any lookup (the same guide: authorized, from the request's
   context, before the service acts on it; a key that may not touch a table
   is refused whether the table exists or not). It comes after the shape
   because it reads what the request names: a request of the wrong shape
   names nothing it can authorize (DynamoDB's order of these two is not on
   record);
4. the operation's table-free checks, its module's ``validate(request)``:
   everything DynamoDB checks without the table, in its order, each raising
   its own ValidationException (or, for an ARN of another account,
   AccessDeniedException); what it parses is handed on, not parsed twice;
   with throughput ceilings (``_limits``), a request is throttled only
   once it has passed them;
5. the operation, ``<operation>(txn, request, checked)``: it looks up what
   the request names (ResourceNotFoundException), then makes the checks that
   need it (key schema, indexes, the table's state), then reads and writes.

tests/server/test_check_order.py sends requests both malformed and aimed at
a missing table unsigned, with a key that may not touch the table, and with
keys that may: MissingAuthenticationTokenException, AccessDeniedException,
then the ValidationException.

An operation module defines ``<operation>(txn, request)`` when it has no
step 4 (its request can be malformed only in shape). The operations and
their step 4, in DynamoDB's order, and what waits for the lookup:

=====================  ============================================  ==============================
operation              checked before the lookup (``validate``)      checked after it
=====================  ============================================  ==============================
GetItem                expression/legacy mixing; the Key's values;   the Key against the schema
                       the projection (AttributesToGet, names,
                       values, ProjectionExpression)
PutItem                ReturnValues; the Item's values; its size;    the key attributes; index
                       the condition (Expected or expression)        keys; the condition's outcome
DeleteItem             ReturnValues; mixing; the Key's values; the   the Key against the schema
                       condition
UpdateItem             ReturnValues; mixing; the Key's values;       the Key against the schema;
                       placeholders; the update (expression or       key attributes not updated;
                       AttributeUpdates); the condition; unused      index key types
                       placeholders (``_params.update_request``,
                       which also remembers passed request shapes)
BatchGetItem           each table's projection; mixing across        each table; each key against
                       tables; the number of keys; every key's       its schema; duplicates
                       values
BatchWriteItem         RequestItems given; the number of entries;    each table; keys; index keys;
                       every entry's values and item size            duplicates
Query                  mixing and placeholders; the legacy filter;   the table and index; the key
                       AttributesToGet; ExclusiveStartKey's values;  condition and start key
                       a key condition given; the expressions;       against the key schema;
                       Select against the projection                 filters on key attributes
                       (``_read_exprs``, ``_select``)
Scan                   as Query, without a key condition; Segment    the table and index; the start
                       and TotalSegments                             key and its segment
TransactGetItems       each Get: its action, projection, Key values  tables; keys; duplicates
TransactWriteItems     each action: its kind, values, expressions;   tables; keys; one action per
                       the payload's 4 MB                            item; conditions' outcomes
UpdateTable            a change given; GSI updates' shapes;          the table; its billing, its
                       throughput bounds; BillingMode against        stream and index states
                       ProvisionedThroughput; a stream's view type;
                       changes that must come alone
TagResource            the ARN's form; its account                   the table; 50 tags at most
                       (AccessDeniedException); tag characters
UntagResource,         the ARN's form; its account                   the table
ListTagsOfResource
DescribeStream         the stream ARN's form; Limit at most 100      the stream
GetShardIterator       the stream ARN's form; SequenceNumber         the stream; the shard; the
                       against the iterator type                     trim horizon
ListStreams            Limit at most 100; the start ARN's form       (nothing to look up)
PutResourcePolicy      the ARN's form (a table or its stream); the   the table, the stream; the
                       policy document                               revision expected
GetResourcePolicy,     the ARN's form                                the table, the stream; its
DeleteResourcePolicy                                                 policy; the revision
Enable/Disable-        the stream ARN's form                         the table; its destinations
KinesisStreaming-
Destination
UpdateKinesis-         the stream ARN's form; a precision given      the table; the destination
StreamingDestination
ExportTableToPoint-    the export type against the members that go   the table; its recovery; the
InTime                 with it                                       times; the ClientToken
ImportTable            format options only for CSV; no vector        the ClientToken; then
                       indexes                                       CreateTable's steps
RestoreTableToPoint-   one time (or the latest); one source          the source; the target's name;
InTime                                                               recovery; the window
=====================  ============================================  ==============================

The other operations have no step 4: their requests are malformed only in
shape (DescribeTable, DeleteTable, DescribeTimeToLive, the backups', the
bulk operations', contributor insights', the legacy global tables' and
the other describe and list operations), or they check their request themselves before
any lookup, in the same order (CreateTable, which looks up only the name it
would take; GetRecords, whose shard iterator names its stream; PartiQL's
statements, parsed and counted before their table). Each operation's case
in tests/api_validation/test_validation_first.py sends a request both
malformed and aimed at something missing, and gets the ValidationException.

:func:`steps_of` reads a module into its :class:`Steps`; :func:`direct`
joins them for a caller that runs an operation on a request it built
(PartiQL's statements, transactions of statements).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from tallydb.engine.storage import Transaction

__all__ = ["Operation", "Steps", "direct", "steps_of"]

Request = dict[str, Any]
Response = dict[str, Any]
Operation = Callable[[Transaction, Request], Response]


class Steps(NamedTuple):
    """An operation's table-free checks (None: it has none) and the rest of
    it, which looks up what the request names and does the work."""

    validate: Callable[[Request], Any] | None
    execute: Callable[..., Response]


def steps_of(module: ModuleType, name: str) -> Steps:
    """The steps of the operation module ``module`` (its handler ``name``)."""
    return Steps(getattr(module, "validate", None), getattr(module, name))


def direct(steps: Steps) -> Operation:
    """One callable running both steps (the request's shape is the caller's)."""
    validate, execute = steps
    if validate is None:
        return execute

    def operation(txn: Transaction, request: Request) -> Response:
        return execute(txn, request, validate(request))
    return operation
