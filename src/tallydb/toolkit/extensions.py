"""Model extensions: code that joins in every write of a model, as the AWS
Java SDK's enhanced client lets a ``DynamoDbEnhancedClientExtension`` do in
``beforeWrite``.

::

    class UpdatedAt(tallydb.Extension):
        def before_write(self, model, operation):
            return tallydb.WriteModification(
                update=tallydb.Update().set("updated_at", int(time.time())))

    class Video(tallydb.Model, table="videos", extensions=[UpdatedAt()]):
        ...

What an extension returns is merged into the write:

* ``update`` (for ``model.update()``): its actions join the model's own (the
  attributes you changed, the atomic counters, the version) in the same
  UpdateItem. Two actions on overlapping paths are refused before anything
  is sent, with DynamoDB's "Two document paths overlap" message, as the
  Java client refuses them;
* ``item`` (for ``model.save()``): attributes set on the item the PutItem
  writes (the Java client's ``transformedItem``);
* ``condition`` (any write): ANDed with the write's own condition.

Differences from the Java client that remain: ``update()`` sends only the
attributes assigned since the instance was loaded (the Java client sends
every non-null attribute), so an extension sees ``model`` as it is but
cannot rely on unchanged attributes being rewritten; there is no
``afterRead`` hook; and extensions are declared per model class rather
than per client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tallydb.toolkit.conditions import Condition
from tallydb.toolkit.update import Update

__all__ = ["Extension", "Operation", "WriteModification"]

Operation = Literal["save", "update", "delete"]


@dataclass(frozen=True)
class WriteModification:
    """What an extension adds to one write (each part optional)."""

    update: Update | None = None
    item: Mapping[str, Any] | None = None
    condition: Condition | None = None


class Extension:
    """Base class of model extensions: override :meth:`before_write`."""

    def before_write(self, model: Any, operation: Operation) -> WriteModification | None:
        """What to add to ``operation`` (``"save"``, ``"update"``,
        ``"delete"``) of ``model``, the instance being written; None for
        nothing. (``model`` is typed ``Any`` so that an override may name its
        own model class.)"""
        return None
