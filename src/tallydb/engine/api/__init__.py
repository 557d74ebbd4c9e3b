"""DynamoDB's operations: one module each, over plain request/response dicts.

An operation module ``api/update_item.py`` defines ``update_item(txn, request)``,
or, when it checks something without the table, ``validate(request)`` and
``<operation>(txn, request, checked)``, and ``ACCESS``, what a request of it
will touch (``_access``); the registry below is built from the module
names, so adding an operation adds a module and edits no switch. Modules
whose names start with ``_`` are shared helpers, not operations.

Every request takes the same steps, in DynamoDB's order (``run``; the order
and its table per operation: ``_pipeline``): the operation, its shape,
access, its table-free checks, then the operation itself, which looks up
what it names.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tallydb.engine.api import _history as history
from tallydb.engine.api import _policies as policies
from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Access, Resolver, Touch, done, refused, touching
from tallydb.engine.api._bulk import BULK, run_bulk
from tallydb.engine.api._exports import EXPORT, run_export
from tallydb.engine.api._global import GLOBAL, Replication
from tallydb.engine.api._imports import IMPORT, run_import
from tallydb.engine.api._insights import INSIGHTS, Insights, setting_of
from tallydb.engine.api._jobs import Integrations, Jobs
from tallydb.engine.api._kinesis import KINESIS, KinesisError, KinesisSender
from tallydb.engine.api._kinesis_forwarder import Forwarder
from tallydb.engine.api._lifecycle import TableDelays
from tallydb.engine.api._limits import Limits
from tallydb.engine.api._params import update_checks
from tallydb.engine.api._pipeline import Steps, direct, steps_of
from tallydb.engine.api._regions import (
    DEFAULT_REGION,
    NAMES_NO_ARN,
    Regions,
    shown_error,
    shown_response,
)
from tallydb.engine.api._replicate import replicate, status
from tallydb.engine.api._shapes import (
    check_request,
    model_members,
    model_operations,
    operations_without_output,
)
from tallydb.engine.api._static_checks import EXPRESSIONS, check_expressions, check_statement
from tallydb.engine.api._stream_records import now_ns
from tallydb.engine.api._ttl import CHANGE_INTERVAL as TTL_CHANGE_INTERVAL
from tallydb.engine.api._ttl import (
    CHANGE_INTERVAL_EXTRA,
    SWEEP_BATCH,
    SWEEP_INTERVAL,
    sweep_expired,
)
from tallydb.engine.api._units import UnitsReport, keep_report
from tallydb.engine.api.describe_table import find_table
from tallydb.engine.api.update_contributor_insights import indexed
from tallydb.engine.errors import DynamoDBError, UnknownOperationException
from tallydb.engine.feed import ChangeFeed
from tallydb.engine.objects import Directory, ObjectStore
from tallydb.engine.storage import Store, Transaction

__all__ = [
    "ACCESS",
    "DEFAULT_REGION",
    "DYNAMODB_SERVICE",
    "EXPRESSIONS",
    "NAMES_NO_ARN",
    "NO_OUTPUT",
    "OPERATIONS",
    "SWEEP_BATCH",
    "SWEEP_INTERVAL",
    "TARGETS",
    "TTL_CHANGE_INTERVAL",
    "Access",
    "Engine",
    "KinesisError",
    "KinesisSender",
    "Limits",
    "SpoiledBatchError",
    "TableDelays",
    "Touch",
    "UnitsReport",
    "check_expressions",
    "check_statement",
    "precheck",
    "prevalidate",
    "resolve",
    "run",
    "target_of",
    "unknown_operation",
]

Request = dict[str, Any]
Response = dict[str, Any]
Item = dict[str, Any]
Operation = Callable[[Transaction, Request], Response]
Runner = Callable[[Transaction, str, Request, "Access | None"], Response]
#: The pipeline's last step: run the operation on a checked, allowed request.
Operate = Callable[[Transaction, str, Request], Response]
#: An operation's quick path: the response to a request of a shape that
#: passed every check before it (the steps before the lookup could only
#: pass it again), or None for the pipeline's steps.
Quick = Callable[[Transaction, Request], "Response | None"]


def _operation_name(module_name: str) -> str:
    return "".join(part.capitalize() for part in module_name.split("_"))


#: The X-Amz-Target prefix of DynamoDB's own operations; a module serving
#: another API (DynamoDB Streams) names its prefix as ``SERVICE``.
DYNAMODB_SERVICE = "DynamoDB_20120810."


def _discover() -> tuple[dict[str, Steps], dict[str, str], dict[str, Resolver],
                         dict[str, Quick]]:
    steps: dict[str, Steps] = {}
    targets: dict[str, str] = {}
    access: dict[str, Resolver] = {}
    quick: dict[str, Quick] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        name = _operation_name(info.name)
        steps[name] = steps_of(module, info.name)
        targets[getattr(module, "SERVICE", DYNAMODB_SERVICE) + name] = name
        if hasattr(module, "ACCESS"):
            access[name] = module.ACCESS
        if hasattr(module, "quick"):
            quick[name] = module.quick
    return steps, targets, access, quick


#: Each operation's steps, X-Amz-Target, ``ACCESS`` declaration (an
#: operation without one is refused to every limited key), and the quick
#: path of the few that have one (``run``).
STEPS, TARGETS, ACCESS, QUICK = _discover()
#: Each operation as one callable, its steps joined (``_pipeline.direct``).
OPERATIONS: dict[str, Operation] = {name: direct(steps) for name, steps in STEPS.items()}
_TARGET_OF = {name: target for target, name in TARGETS.items()}

def precheck(operation: str, request: Request) -> None:
    """The pipeline's checks that need no table, alone (``_pipeline``'s
    steps 1, 2 and 4, access aside): DynamoDB's error for a request that no table could make
    valid, its shape, then the operation's ``validate`` (an item over
    400 KB, say). Pure, needing no store: what a throttle checks before it
    refuses a request, and what the server runs on a worker process for a
    large request before parsing it where every other request waits."""
    steps = STEPS.get(operation)
    if steps is None:
        raise unknown_operation(operation)
    check_request(operation, request)
    if steps.validate is not None:
        steps.validate(request)


#: Operations whose success has no body (DynamoDB's model gives them no output).
NO_OUTPUT = operations_without_output()


def target_of(operation: str) -> str:
    """The X-Amz-Target an operation is served under."""
    return _TARGET_OF.get(operation, DYNAMODB_SERVICE + operation)

#: Operations that never write: a batch runs them without a savepoint.
READ_ONLY = frozenset({
    "GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems",
    "DescribeTable", "ListTables", "DescribeTimeToLive", "DescribeBackup", "ListBackups",
    "ListStreams", "DescribeStream", "GetShardIterator", "GetRecords",
    "ListTagsOfResource", "DescribeEndpoints", "DescribeLimits", "DescribeContinuousBackups",
    "DescribeExport", "ListExports", "DescribeImport", "ListImports",
    "DescribeKinesisStreamingDestination", "DescribeContributorInsights",
    "ListContributorInsights", "GetResourcePolicy", "DescribeBulkOperation",
    "ListBulkOperations",
})

#: Each kind of background job: its runner, and its description's status member.
JOB_KINDS = {EXPORT: (run_export, "ExportStatus"), IMPORT: (run_import, "ImportStatus"),
             BULK: (run_bulk, "BulkOperationStatus")}

#: Operations that raise every client error before their writes (of an item
#: and its index entries; BatchWriteItem's up to 25 of them, once all are
#: checked): a batch runs them without a savepoint too, and their writes
#: stay in memory until it commits, as the item log's record.
WRITE_LAST = frozenset({"PutItem", "UpdateItem", "DeleteItem", "ExecuteStatement",
                        "BatchWriteItem"})


#: Operations that call ``check_request`` themselves, first, unless a request
#: is of a shape they remember having passed it (``_params.update_request``).
CHECKS_ITS_SHAPE = frozenset({"UpdateItem"})


class SpoiledBatchError(RuntimeError):
    """An operation of a batch failed after it had written: the batch's
    transaction is rolled back whole, since nothing else can undo that write."""


class Engine:
    """All of tallydb's DynamoDB behaviour over one store.

    ``call`` runs one request in its own transaction; ``batch`` lets a server
    run many requests in one transaction so that they commit together (group
    commit): no caller may see a batch's results before the batch commits.

    ``limits`` (off by default) enforces DynamoDB's throughput ceilings
    (``_limits``); without it no request pays anything for them.
    ``sweep_expired`` deletes items whose TTL has passed (``_ttl``);
    ``ttl_change_interval`` is how long after a change of a table's TTL
    another is refused (DynamoDB's hour by default; 0 for tests).
    ``feed`` publishes every committed item change to its listeners
    (``tallydb.engine.feed``); the store records changes only while it has some.
    A request runs in a region (``_regions``): its ARNs name it, and with
    ``separate_regions`` each region has its own tables.
    Kinesis destinations' records go to ``kinesis`` (``_kinesis``).
    Exports go to and imports come from ``objects`` (by default a directory
    per bucket: ``s3/`` in the data directory, or a temporary one for an
    in-memory store), on background jobs (``_jobs``).
    """

    def __init__(
        self, store: Store, limits: Limits | None = None, separate_regions: bool = False,
        objects: ObjectStore | None = None, kinesis: KinesisSender | None = None,
        replication_delay: float = 1.0, table_delays: TableDelays | None = None,
        ttl_change_interval: float = TTL_CHANGE_INTERVAL,
    ) -> None:
        self.store = store
        #: How long tables stay CREATING, DELETING, UPDATING (``_lifecycle``;
        #: None, the default: they change state at once).
        store.table_delays = table_delays
        self._scratch: str | None = None
        if store.location == ":memory:":
            import tempfile

            self._scratch = tempfile.mkdtemp(prefix="tallydb-")
            home = Path(self._scratch)
        else:
            home = Path(store.location).parent
        if objects is None:
            objects = Directory(home / "s3")
        self.jobs = Jobs(store, {kind: runner for kind, (runner, _) in JOB_KINDS.items()})
        self.integrations = Integrations(objects, self.jobs, home / "logs", run)
        self.jobs.integrations = self.integrations
        self.integrations.extras[CHANGE_INTERVAL_EXTRA] = ttl_change_interval
        self.forwarder = self.integrations.extras["kinesis"] = Forwarder(store, kinesis)
        self.insights = self.integrations.extras["insights"] = Insights()
        if limits is not None:
            limits.on_throttle = self._throttled
        store.context = self.integrations
        from tallydb.engine.api._replication_thread import Replicator

        self.replicator = Replicator(self)
        self.replication = Replication(replication_delay, self.replicator.wake)
        self.integrations.extras["replication"] = self.replication
        self.limits = limits
        self.regions = Regions(separate_regions)
        #: Whether every operation depends on its request's region (its
        #: catalog, a throttle's ARNs), not only those naming ARNs.
        self.regional = separate_regions or limits is not None
        # (the throughput ceilings come after access, and refuse only a
        # request that passed the table-free checks: ``validate_only``)
        self._run: Runner = run if limits is None else partial(
            run, operate=limits.wrap(operate, validate_only))
        #: The operations whose region nothing depends on: they run as they
        #: are, without ``_in_region``'s work (a hot UpdateItem pays nothing).
        self._plain = frozenset() if self.regional else NAMES_NO_ARN
        self.feed = ChangeFeed(self._listening)
        with store.transaction() as txn:
            streams.recover(txn)
            history.recover(txn)
            replicated = any(GLOBAL in t.description for t in txn.all_tables())
        if replicated:  # changes may wait in outboxes since before a restart
            self.replicator.wake()
        self._key_names: dict[int, tuple[str, ...]] = {}
        self.jobs.resume(lambda kind, document: document["description"][JOB_KINDS[kind][1]])
        with store.transaction() as txn:
            sending = any(KINESIS in t.description for t in txn.all_tables())
        if sending:
            self.forwarder.start()

    def _listening(self, on: bool) -> None:
        with self.store.transaction():  # between two transactions, never inside one
            self.store.on_commit = self.feed.publish if on else None
            if on:  # a gap: no position from before is taken for one after
                self.feed.skip()

    def report_units(self, on: bool) -> UnitsReport | None:
        """While ``on``, have PutItem, UpdateItem and DeleteItem leave each
        request's units in the ``UnitsReport`` returned (``_units``), asked
        for or not; off again, they do not, and None is returned."""
        return keep_report(self.integrations, on)

    def _in_region(
        self, txn: Transaction, operation: str, request: Request, access: Access | None, *,
        region: str
    ) -> Response:
        """Run one operation in ``region``: its catalog, its ARNs."""
        self.integrations.region = region  # (what a job, a stream record shows)
        if self.regions.separate:
            txn.catalog = self.regions.catalog(region)
            txn.region = region
        try:
            if operation in NAMES_NO_ARN:
                return self._run(txn, operation, request, access)
            response = self._run(txn, operation, self.regions.request(request, region), access)
            return shown_response(operation, response, region)
        except DynamoDBError as error:
            shown_error(error, region)
            raise

    def _runner(self, operation: str, region: str) -> Runner:
        """How ``operation`` runs for a request of ``region``."""
        if operation in self._plain:
            return self._run
        return partial(self._in_region, region=region)

    def call(
        self, operation: str, request: Request, region: str = DEFAULT_REGION,
        access: Access | None = None,
    ) -> Response:
        """Run one request in its own transaction; ``access``: what its caller
        may do (None: anything)."""
        with self.store.transaction() as txn:
            return self._runner(operation, region)(txn, operation, request, access)

    def resolve(
        self, operation: str, request: Request, region: str = DEFAULT_REGION
    ) -> tuple[Touch, ...]:
        """What a request would touch (``_access``), as the pipeline resolves
        it for a limited key (its steps 1 to 3, without the check); runs
        nothing. DynamoDB's error for a request refused before that."""
        if operation not in OPERATIONS:
            raise unknown_operation(operation)
        with self.store.transaction() as txn:
            if self.regions.separate:
                txn.catalog = self.regions.catalog(region)
            if operation not in NAMES_NO_ARN:
                request = self.regions.request(request, region)
            request = known_members(operation, request)
            check_request(operation, request)
            return resolve(txn, operation, request)

    def batch(self) -> Batch:
        """Run many requests in one transaction (one commit): ``with
        engine.batch() as call``, then ``call(operation, request, region,
        access)`` for each (``Batch``)."""
        return Batch(self)

    def top_keys(self, table: str, index: str | None = None, limit: int = 10
                 ) -> dict[str, Any]:
        """A table's (or index's) contributor insights and its busiest keys
        of the last minute, busiest first (the console's JSON endpoint)."""
        with self.store.transaction() as txn:
            record = find_table(txn, table)
            indexed(record, index)
        setting = setting_of(record, index) or {"ContributorInsightsStatus": "DISABLED"}
        answer: dict[str, Any] = {"TableName": record.name}
        if index is not None:
            answer["IndexName"] = index
        answer["ContributorInsightsStatus"] = setting["ContributorInsightsStatus"]
        if "ContributorInsightsMode" in setting:
            answer["ContributorInsightsMode"] = setting["ContributorInsightsMode"]
        answer["TopKeys"] = [
            {"keys": entry["keys"], "accesses": entry["writes"], "rate": entry["rate"],
             "spark": entry["spark"], "throttled": entry["throttled"]}
            for entry in self.insights.top(record, index, limit)]
        return answer

    def _throttled(self, table: str, hk: bytes) -> None:
        """A request on ``table``'s partition ``hk`` was throttled."""
        with self.store.transaction() as txn:
            record = txn.table(table)
        if record is not None and INSIGHTS in record.description:
            self.insights.throttled(record, hk)

    def sweep_expired(self, now: float | None = None, limit: int = SWEEP_BATCH) -> int:
        """Delete up to ``limit`` items whose TTL attribute (epoch seconds) is
        before ``now`` (the wall clock by default), with their index entries,
        in one transaction; how many were deleted.

        A server calls it every ``SWEEP_INTERVAL`` seconds, and again at once
        while it returns ``limit`` (a backlog). The same loop trims stream
        records past their 24 hours (``_streams.trim``) and point-in-time
        history past its recovery period (``_history.trim``), and, with table
        lifecycle delays, deletes for good the tables whose DELETING is over
        (``_streams.settle``); the answer is the largest of the counts, so a
        backlog of any brings the next call.
        """
        when = time.time() if now is None else now
        with self.store.transaction() as txn:
            deleted = sweep_expired(txn, when, limit)
            trimmed = streams.trim(txn, when, limit)
            forgotten = history.trim(txn, when, limit)
            if self.store.table_delays is not None:
                streams.settle(txn, when)
        return max(deleted, trimmed, forgotten)

    def replicate(self) -> float | None:
        """One round of global tables' replication (``_replicate``); seconds
        until the next change is due, or None when none waits (the next
        change wakes the replication thread)."""
        settings = self.replication
        with self.store.transaction() as txn:
            wait = replicate(txn, now_ns(), settings.delay_ns)
            settings.idle = wait is None  # (inside: no writer can slip between)
        return None if wait is None else wait / 1_000_000_000

    def replication_status(self) -> list[dict[str, Any]]:
        """Every global table replica's replication: table, region, the
        group's regions, consistency, the changes waiting to be sent and
        the age of the oldest in seconds (its lag). DynamoDB reports lag
        only to CloudWatch (ReplicationLatency); a console asks here."""
        with self.store.transaction() as txn:
            return status(txn, now_ns())

    def close(self) -> None:
        self.replicator.stop()
        self.forwarder.close()
        self.jobs.close()
        self.store.close()
        if self._scratch is not None:
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)


#: tallydb's answer to an operation of DynamoDB's API that it does not serve
#: (DynamoDB answers an unknown target without a message).
NOT_SERVED = "{operation} is an operation of DynamoDB that tallydb does not serve"


def unknown_operation(operation: str) -> UnknownOperationException:
    """The answer to a target no operation serves: it names the operation
    when it is one of DynamoDB's (botocore's model), and is DynamoDB's own,
    without a message, otherwise."""
    if operation in model_operations():
        return UnknownOperationException(NOT_SERVED.format(operation=operation))
    return UnknownOperationException()


#: Each operation's top-level members in DynamoDB's model (filled on first use).
_MEMBERS: dict[str, frozenset[str]] = {}


def known_members(operation: str, request: Request) -> Request:
    """``request`` without the members DynamoDB's model does not have for
    ``operation``: DynamoDB ignores them, and after this no step can read
    one (a decoy ``TableName`` on GetShardIterator is gone before anything
    looks)."""
    members = _MEMBERS.get(operation)
    if members is None:
        members = _MEMBERS[operation] = frozenset(model_members(operation))
    if type(request) is not dict or members.issuperset(request):
        return request
    return {name: value for name, value in request.items() if name in members}


def resolve(txn: Transaction, operation: str, request: Request) -> tuple[Touch, ...]:
    """What ``request`` (its shape already checked) will touch: the
    operation's ``ACCESS`` (an operation without one touches what no
    limited key may)."""
    declared = ACCESS.get(operation)
    return refused(operation) if declared is None else tuple(declared(txn, request))


def operate(txn: Transaction, operation: str, request: Request) -> Response:
    """The pipeline's steps after access: the operation's table-free
    checks (``validate``, unless ``prevalidate`` made them), then the
    operation itself."""
    validate, execute = STEPS[operation]
    if validate is None:
        return execute(txn, request)
    if _PREVALIDATED:
        with _PREVALIDATED_LOCK:
            made = _PREVALIDATED.pop(id(request), None)
        if made is not None and made[0] is request:
            return execute(txn, request, made[1])
    return execute(txn, request, validate(request))


#: What ``prevalidate`` found, by the identity of the request it checked
#: (the request itself kept, so an identity is never mistaken); at most
#: ``_PREVALIDATED_KEPT``, the oldest forgotten first.
_PREVALIDATED: dict[int, tuple[Request, Any]] = {}
_PREVALIDATED_KEPT = 8
_PREVALIDATED_LOCK = threading.Lock()


def prevalidate(operation: str, request: Request) -> None:
    """Make a request's table-free checks ahead, on any thread, so that
    ``run`` does not repeat them on its own: the server does this for a
    large request on a worker thread, where checking every value of a
    200,000-element list does not hold up the event loop. Only a request
    that passes is remembered (one that fails is checked again where it
    runs, so its error comes in the pipeline's order, after access)."""
    steps = STEPS.get(operation)
    if steps is None or steps.validate is None or known_members(operation, request) is not request:
        return
    try:
        if operation not in CHECKS_ITS_SHAPE:
            check_request(operation, request)
        checked = steps.validate(request)
    except DynamoDBError:
        return
    with _PREVALIDATED_LOCK:
        _PREVALIDATED[id(request)] = (request, checked)
        while len(_PREVALIDATED) > _PREVALIDATED_KEPT:
            del _PREVALIDATED[next(iter(_PREVALIDATED))]


_operate = operate  # (``run``'s parameter of that name is another step in its place)


def validate_only(operation: str, request: Request) -> None:
    """The operation's table-free checks alone (its shape already checked,
    but for an operation that checks its own): what a throttle checks
    before it refuses a request."""
    validate = STEPS[operation].validate
    if validate is not None:
        validate(request)
    elif operation in CHECKS_ITS_SHAPE:  # UpdateItem: its checks are its own
        check_request(operation, request)
        update_checks(request)


def run(
    txn: Transaction, operation: str, request: Request, access: Access | None = None,
    operate: Operate | None = None,
) -> Response:
    """Run one DynamoDB operation inside an open transaction: the request
    pipeline, the same for every operation, in this order:

    1. the operation: UnknownOperationException for one nothing serves;
    2. the request's shape (``_shapes``): SerializationException or
       ValidationException; members outside DynamoDB's model are dropped
       (``known_members``), so nothing after this step reads one;
    3. access, for a limited caller (``_access``), or for any signed caller
       once some table keeps a resource policy (``_policies``): the
       operation's ``ACCESS`` resolves the request into what it will touch,
       from the operation's own reading of it, and AccessDeniedException
       refuses a touch the caller's key, or a policy, does not allow,
       before anything runs;
    4. the operation's table-free checks, its module's ``validate``
       (``_pipeline``), in DynamoDB's order;
    5. the operation itself, which looks up what it names, makes the checks
       that need it, then reads and writes (``operate``: with throughput
       ceilings, ``Limits`` first, between steps 4 and 5).

    A request of a shape that passed steps 1, 2 and 4 before (an UpdateItem,
    a GetItem: their modules' ``quick``) can only pass them again; when
    access has nothing to decide for it (no limited key, no access log, no
    resource policy to enforce) and no throughput ceiling applies, it goes
    straight to step 5.
    """
    quick = QUICK.get(operation)
    if quick is not None and operate is None and (access is None or not (
            access.limited or access.record
            or (access.key is not None and policies.kept_anywhere(txn)))):
        response = quick(txn, request)
        if response is not None:
            return response
    if operation not in STEPS:
        raise unknown_operation(operation)
    request = known_members(operation, request)
    if operation not in CHECKS_ITS_SHAPE:
        check_request(operation, request)
    if access is not None and (access.limited or access.record or (
            access.key is not None and policies.kept_anywhere(txn))):
        if access.limited:
            if operation in CHECKS_ITS_SHAPE:
                check_request(operation, request)
            access.touched = resolve(txn, operation, request)
            access.check(access.touched)
            if access.key is not None and policies.kept_anywhere(txn):
                policies.enforce(txn, access.caller, access.region, access.touched)
            token = touching(access)
            try:
                return (operate or _operate)(txn, operation, request)
            finally:
                done(token)
        try:  # the operation's own errors come in its own order: one the
            # resolution meets, the operation meets before it touches anything
            access.touched = resolve(txn, operation, request)
        except DynamoDBError:
            access.touched = ()
        if access.key is not None and policies.kept_anywhere(txn):
            policies.enforce(txn, access.caller, access.region, access.touched)
    return (operate or _operate)(txn, operation, request)


class Batch:
    """Many requests in one transaction (``Engine.batch``; a class, not a
    generator context manager: a server enters one every event-loop turn).

    A failed write must leave the batch's other writes whole: most
    operations run in a savepoint; the WRITE_LAST ones need none, and if
    one ever fails after writing the whole batch is rolled back
    (``SpoiledBatchError`` when the block ends) rather than committed
    with half an operation in it.
    """

    __slots__ = ("_engine", "_scope", "_spoiled")

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._scope = engine.store.transaction()
        self._spoiled: list[BaseException] = []

    def __enter__(self) -> Callable[..., Response]:
        engine = self._engine
        plain = engine._plain
        pipeline = engine._run
        in_region = engine._runner
        store = engine.store
        spoiled = self._spoiled
        # The quick paths ``run`` takes first, taken here (one call fewer a
        # request): only with no throughput ceilings, only for a caller
        # whose access decides nothing (None), only where the region does
        # not matter. Anything they leave goes to ``run`` past its own try
        # of them (an ``operate`` given: the default one, ``_operate``).
        quick_of = QUICK if pipeline is run else {}
        txn = self._scope.__enter__()

        def call(
            operation: str, request: Request, region: str = DEFAULT_REGION,
            access: Access | None = None,
        ) -> Response:
            if operation in plain:
                runner = pipeline
                quick = None if access is not None else quick_of.get(operation)
            else:
                runner = in_region(operation, region)
                quick = None
            if operation in READ_ONLY:
                if quick is not None:
                    response = quick(txn, request)
                    if response is not None:
                        return response
                    return run(txn, operation, request, None, _operate)
                return runner(txn, operation, request, access)
            if operation in WRITE_LAST:
                writes = store.writes
                try:
                    if quick is not None:
                        response = quick(txn, request)
                        if response is not None:
                            return response
                        return run(txn, operation, request, None, _operate)
                    return runner(txn, operation, request, access)
                except BaseException as error:
                    if store.writes != writes:
                        spoiled.append(error)
                    raise
            with txn.savepoint():  # a failed write leaves the batch's others whole
                return runner(txn, operation, request, access)

        return call

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: object) -> None:
        if kind is None and self._spoiled:
            spoiled = SpoiledBatchError(
                "an operation failed after writing; the batch is rolled back")
            spoiled.__cause__ = self._spoiled[0]
            self._scope.__exit__(SpoiledBatchError, spoiled, None)  # (rolled back)
            raise spoiled
        self._scope.__exit__(kind, error, trace)
