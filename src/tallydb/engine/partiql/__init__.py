"""tallydb.engine.partiql: DynamoDB's PartiQL, pure (no I/O).

``parse`` turns a statement into a syntax tree (``ast``), cached by its
text; ``plan`` maps a statement, its parameters and the table's key onto the
request of an existing operation (UpdateItem, PutItem, DeleteItem, GetItem,
Query, Scan), rendered in DynamoDB's expression language, so a PartiQL
statement runs exactly the code path the JSON operation runs; ``template``
makes that plan once for every request of a statement, ``fill`` puts a
request's parameters in it, and ``cache`` keeps both by the statement's text.
"""

from tallydb.engine.partiql.ast import Delete, Exists, Insert, Select, Statement, Update
from tallydb.engine.partiql.parser import StatementError, parse, parse_counted
from tallydb.engine.partiql.plan import (
    KeyAttributes,
    Planned,
    fill,
    plan,
    plan_check,
    plan_get,
    plan_with,
    template,
)

__all__ = [
    "Delete",
    "Exists",
    "Insert",
    "KeyAttributes",
    "Planned",
    "Select",
    "Statement",
    "StatementError",
    "Update",
    "fill",
    "parse",
    "parse_counted",
    "plan",
    "plan_check",
    "plan_get",
    "plan_with",
    "template",
]
