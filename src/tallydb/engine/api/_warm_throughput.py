"""A table's warm throughput (WarmThroughput), kept as DynamoDB keeps it.

Every table has one: an on-demand table starts at 12,000 read and 4,000
write units a second, a provisioned table at its ReadCapacityUnits and
WriteCapacityUnits. It only ever rises: a request may raise it, a capacity
increase or a switch to on-demand raises it to the new baseline, and nothing
lowers it. A request that names one unit keeps the other.

The texts are DynamoDB's (conformance catalogue 2026, and the decrease text
as Terraform's AWS provider quotes it); the provisioned "lower than
WriteCapacityUnits" text is the read one's twin, not on record itself.

Pre-warming takes DynamoDB minutes (Status UPDATING); tallydb has nothing to
warm, so the new units are in place, ACTIVE, at once.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.errors import ValidationException

__all__ = ["follow_capacity", "initial", "raised"]

#: An on-demand table's warm throughput, and the least it may be given.
ON_DEMAND = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000}
#: Each unit beside the provisioned capacity it may not be below.
_CAPACITY = {"ReadUnitsPerSecond": "ReadCapacityUnits", "WriteUnitsPerSecond": "WriteCapacityUnits"}
_INVALID = "One or more parameter values were invalid: "
_ON_DEMAND_GUIDE = ("https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                    "on-demand-capacity-mode.html#on-demand-capacity-mode-initial")


def _described(units: dict[str, int]) -> dict[str, Any]:
    return {**units, "Status": "ACTIVE"}


def _baseline(mode: str, provisioned: dict[str, Any] | None) -> dict[str, int]:
    if mode == "PAY_PER_REQUEST" or not provisioned:
        return dict(ON_DEMAND)
    return {unit: provisioned[capacity] for unit, capacity in _CAPACITY.items()}


def _current(description: dict[str, Any]) -> dict[str, int]:
    summary = description.get("BillingModeSummary") or {}
    mode = summary.get("BillingMode", "PROVISIONED")
    units = _baseline(mode, description.get("ProvisionedThroughput"))
    kept = description.get("WarmThroughput") or {}
    for unit in units:
        if unit in kept:
            units[unit] = kept[unit]
    return units


def initial(request: dict[str, Any], mode: str) -> dict[str, Any]:
    """A new table's WarmThroughput description, after CreateTable's check
    of the units it asks for."""
    provisioned = request.get("ProvisionedThroughput")
    units = _baseline(mode, provisioned)
    for unit, value in (request.get("WarmThroughput") or {}).items():
        if unit not in units:
            continue
        if value < units[unit]:
            if mode == "PAY_PER_REQUEST":
                raise ValidationException(
                    f"{_INVALID}Requested {unit} for WarmThroughput for table is lower than "
                    f"initial throughput for OnDemand. See: {_ON_DEMAND_GUIDE}")
            raise ValidationException(
                f"{_INVALID}Requested {unit} for WarmThroughput for table is lower than "
                f"{_CAPACITY[unit]} of ProvisionedThroughput")
        units[unit] = value
    return _described(units)


def raised(description: dict[str, Any], requested: dict[str, Any]) -> dict[str, Any]:
    """UpdateTable's WarmThroughput: the units asked for, none of them below
    the table's current ones; a unit not asked for stays as it is."""
    units = _current(description)
    for unit in ON_DEMAND:
        value = requested.get(unit)
        if value is not None and value < units[unit]:
            raise ValidationException(
                f"{_INVALID}Requested {unit} for WarmThroughput for table is lower than current "
                "WarmThroughput, decreasing WarmThroughput is not supported")
    for unit in ON_DEMAND:
        if requested.get(unit) is not None:
            units[unit] = requested[unit]
    return _described(units)


def follow_capacity(description: dict[str, Any]) -> None:
    """After a billing or capacity change: the warm throughput rises to the
    table's new baseline where that is higher, and never falls."""
    units = _current(description)
    summary = description.get("BillingModeSummary") or {}
    baseline = _baseline(summary.get("BillingMode", "PROVISIONED"),
                         description.get("ProvisionedThroughput"))
    description["WarmThroughput"] = _described(
        {unit: max(units[unit], baseline[unit]) for unit in units})
