"""A pytest plugin: a real DynamoDB endpoint for your tests, instead of mocks.

With tallydb installed the plugin is active (it is registered under pytest's
``pytest11`` entry point; otherwise add ``pytest_plugins = ["tallydb.testing"]``
to your ``conftest.py``). Your tests then ask for:

``tallydb_server``
    A throwaway ``tallydb serve`` started once per test session (per xdist
    worker) on a free loopback port, its data in a temporary directory, stopped
    at the end. ``.url`` is its endpoint.
``tallydb_endpoint``
    That URL, e.g. ``http://127.0.0.1:40312``.
``tallydb_client`` / ``tallydb_resource``
    A ``boto3.client("dynamodb")`` / ``boto3.resource("dynamodb")`` bound to
    it (region ``us-east-1``, dummy credentials). Tables a test creates are
    deleted after it, so tests do not see each other's tables.
``tallydb_db`` / ``tallydb_aio_db``
    The toolkit: ``tallydb.connect(client=tallydb_client)``, and the same for
    asyncio (a ``tallydb.aio.Database``, for ``async def`` tests under
    pytest-asyncio or anyio).
``tallydb_mock``
    :func:`mock_dynamodb` for the test: every boto3 DynamoDB client made
    without an ``endpoint_url`` is answered in-process by a fresh engine.

Tables a test creates are deleted after it, whichever client created them,
as soon as the test asks for any of these fixtures (``tallydb_endpoint``
included); ``tallydb_server.url`` is the endpoint without that clean-up.

::

    def test_signup_counts_once(tallydb_client):
        tallydb_client.create_table(TableName="users", ...)
        my_app.signup(tallydb_client, "ada")
        ...

``pytest --tallydb-endpoint http://127.0.0.1:8000`` (or the environment
variable ``TALLYDB_ENDPOINT``) runs the same fixtures against an endpoint you
started yourself (``tallydb serve``, DynamoDB Local, moto) instead. A test run
must not see or change anyone's tables, so an endpoint that already has
tables is refused before any test runs, unless
``--tallydb-allow-existing-tables`` says so; either way, the tables deleted
after each test are only those this process's boto3 clients created in it
(other xdist workers, and people, may use the endpoint at the same time).

Outside pytest, :func:`serve` is the same throwaway server as a context
manager::

    with tallydb.testing.serve() as server:
        client = server.client()

and :func:`mock_dynamodb` a drop-in for moto's
``mock_aws`` for DynamoDB: a context manager and a decorator::

    @mock_dynamodb()
    def test_signup():
        ddb = boto3.client("dynamodb", region_name="us-east-1")
"""

from tallydb.testing.mock import MockDynamoDB, mock_dynamodb
from tallydb.testing.plugin import (
    pytest_addoption,
    pytest_configure,
    tallydb_aio_db,
    tallydb_client,
    tallydb_db,
    tallydb_endpoint,
    tallydb_mock,
    tallydb_resource,
    tallydb_server,
)
from tallydb.testing.server import LISTENING, Server, serve
from tallydb.toolkit.inprocess import client as inprocess_client

__all__ = [
    "LISTENING",
    "MockDynamoDB",
    "Server",
    "inprocess_client",
    "mock_dynamodb",
    "pytest_addoption",
    "pytest_configure",
    "serve",
    "tallydb_aio_db",
    "tallydb_client",
    "tallydb_db",
    "tallydb_endpoint",
    "tallydb_mock",
    "tallydb_resource",
    "tallydb_server",
]
