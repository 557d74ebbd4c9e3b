"""The warm throughput (WarmThroughput) of a table and of each of its GSIs,
kept as DynamoDB keeps it.

Every table and every GSI has one: on an on-demand table it starts at
12,000 read and 4,000 write units a second, on a provisioned one at the
table's (the GSI's) ReadCapacityUnits and WriteCapacityUnits. It only ever
rises: a request may raise it, a capacity increase or a switch to on-demand
raises it to the new baseline, and nothing lowers it. A request that names
one unit keeps the other; a GSI's update must name at least one.

The texts are DynamoDB's (conformance catalogue 2026, and the decrease text
as Terraform's AWS provider quotes it); the provisioned "lower than
WriteCapacityUnits" text is the read one's twin, not on record itself.

Pre-warming takes DynamoDB minutes (Status UPDATING); tallydb has nothing to
warm, so the new units are in place, ACTIVE, at once.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.errors import ValidationException

__all__ = ["check_index_update", "follow_capacity", "initial", "raised", "table_units"]

#: An on-demand table's warm throughput, and the least it may be given.
ON_DEMAND = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000}
#: Each unit beside the provisioned capacity it may not be below.
_CAPACITY = {"ReadUnitsPerSecond": "ReadCapacityUnits", "WriteUnitsPerSecond": "WriteCapacityUnits"}
_INVALID = "One or more parameter values were invalid: "
_ON_DEMAND_GUIDE = ("https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                    "on-demand-capacity-mode.html#on-demand-capacity-mode-initial")


def _owner(index: str | None) -> str:
    return "table" if index is None else f"index {index}"


def _described(units: dict[str, int]) -> dict[str, Any]:
    return {**units, "Status": "ACTIVE"}


def _mode(description: dict[str, Any]) -> str:
    summary = description.get("BillingModeSummary") or {}
    return str(summary.get("BillingMode", "PROVISIONED"))


def _baseline(mode: str, provisioned: dict[str, Any] | None) -> dict[str, int]:
    if mode == "PAY_PER_REQUEST" or not provisioned:
        return dict(ON_DEMAND)
    return {unit: provisioned[capacity] for unit, capacity in _CAPACITY.items()}


def _current(mode: str, part: dict[str, Any]) -> dict[str, int]:
    """A table's (a GSI's) units: the ones it keeps, else its baseline."""
    units = _baseline(mode, part.get("ProvisionedThroughput"))
    kept = part.get("WarmThroughput") or {}
    for unit in units:
        if unit in kept:
            units[unit] = kept[unit]
    return units


def initial(request: dict[str, Any], mode: str, index: str | None = None) -> dict[str, Any]:
    """A new table's (a new GSI's, ``index`` its name) WarmThroughput
    description, after the check of the units its request asks for."""
    units = _baseline(mode, request.get("ProvisionedThroughput"))
    for unit, value in (request.get("WarmThroughput") or {}).items():
        if unit not in units:
            continue
        if value < units[unit]:
            if mode == "PAY_PER_REQUEST":
                raise ValidationException(
                    f"{_INVALID}Requested {unit} for WarmThroughput for {_owner(index)} is lower "
                    f"than initial throughput for OnDemand. See: {_ON_DEMAND_GUIDE}")
            raise ValidationException(
                f"{_INVALID}Requested {unit} for WarmThroughput for {_owner(index)} is lower than "
                f"{_CAPACITY[unit]} of ProvisionedThroughput")
        units[unit] = value
    return _described(units)


def check_index_update(name: str, requested: dict[str, Any]) -> None:
    """A GSI's update must name a unit (checked before the table is looked up)."""
    if all(requested.get(unit) is None for unit in ON_DEMAND):
        raise ValidationException(
            f"{_INVALID}WarmThroughput must have at least one of ReadUnitsPerSecond or "
            f"WriteUnitsPerSecond specified for index: {name}")


def raised(mode: str, part: dict[str, Any], requested: dict[str, Any],
           index: str | None = None) -> dict[str, Any]:
    """UpdateTable's WarmThroughput for a table (a GSI): the units asked for,
    none of them below the current ones; a unit not asked for stays as it is."""
    units = _current(mode, part)
    for unit in ON_DEMAND:
        value = requested.get(unit)
        if value is not None and value < units[unit]:
            raise ValidationException(
                f"{_INVALID}Requested {unit} for WarmThroughput for {_owner(index)} is lower than "
                "current WarmThroughput, decreasing WarmThroughput is not supported")
    for unit in ON_DEMAND:
        if requested.get(unit) is not None:
            units[unit] = requested[unit]
    return _described(units)


def follow_capacity(description: dict[str, Any]) -> None:
    """After a billing or capacity change: the table's and each GSI's warm
    throughput rises to its new baseline where that is higher, never falls."""
    mode = _mode(description)
    for part in (description, *description.get("GlobalSecondaryIndexes", ())):
        units = _current(mode, part)
        baseline = _baseline(mode, part.get("ProvisionedThroughput"))
        part["WarmThroughput"] = _described(
            {unit: max(units[unit], baseline[unit]) for unit in units})


def table_units(description: dict[str, Any], requested: dict[str, Any]) -> dict[str, Any]:
    """UpdateTable's WarmThroughput for the table itself."""
    return raised(_mode(description), description, requested)
