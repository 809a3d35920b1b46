"""What the turn listens for. The parts of the app below the turn's state machine announce
these; only `campaign.turns.receivers` listens, and moves the turn on. So the battles app and
the orders feature never drive the turn themselves, yet the turn goes on the moment it can.

Each is sent inside the transaction of the change it announces, with `turn`; the receiver
queues its work for when that transaction commits.
"""

from django.dispatch import Signal

# the last battle of `turn` still waiting has been settled (confirmed, overridden, fought by
# the tactical engine): its Phases 4–8 can run
battles_settled = Signal()

# a player confirmed his orders for `turn`: it may close early, once every player has
orders_confirmed = Signal()
